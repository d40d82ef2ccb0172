package buzz.scheduled.adapters.postgres;

import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.row;

import buzz.scheduled.adapters.postgres.jooq.tables.ScheduledMessageTable;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Cursor;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase.SeriesSummary;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record3;
import org.jooq.impl.DSL;

/**
 * The owner side's reads ({@link OwnerMessageQueries}) on PostgreSQL with jOOQ: one message, a page of an owner's
 * messages within a byte budget, and a series' summary. No connection is held between calls; a read that meets an
 * ended or read-only pooled session runs once more on a new one ({@link SessionFaults#retriedOnce}).
 */
public final class PostgresOwnerMessageQueries implements OwnerMessageQueries {

    private static final ScheduledMessageTable M = OwnerMessageRows.M;
    private static final Field<Instant> NOW = DatabaseClock.NOW;

    private final DSLContext dsl;

    /** Reads over {@code dataSource} (a pool; each call borrows a connection and returns it). */
    public PostgresOwnerMessageQueries(DataSource dataSource) {
        this.dsl = OwnerMessageRows.jooq(dataSource);
    }

    /**
     * The database clock ({@code now()}), for tools and tests that act on this store; the services read the store's
     * clock through their own ports ({@code StoreClock}, {@code DeliveryStore.now()}).
     */
    public Instant now() {
        return SessionFaults.retriedOnce(() -> dsl.select(NOW).fetchSingle().value1());
    }

    @Override
    public Optional<ScheduledMessage> find(ScheduleId id) {
        return SessionFaults.retriedOnce(() -> OwnerMessageRows.find(dsl, id));
    }

    @Override
    public Page list(ListQuery query) {
        return SessionFaults.retriedOnce(() -> listPage(query));
    }

    private Page listPage(ListQuery query) {
        Condition where = M.OWNER.eq(query.owner().hex()).and(M.STATE.in(query.states()));
        if (query.channel().isPresent()) {
            where = where.and(M.CHANNEL.eq(query.channel().get().value()));
        }
        if (query.series().isPresent()) {
            where = where.and(M.SERIES_ID.eq(query.series().get().value()));
        }
        if (query.after().isPresent()) {
            Cursor after = query.after().get();
            where = where.and(row(M.DUE_AT, M.ID).gt(after.dueAt(), after.id().value()));
        }
        // First the positions and sizes only (octet_length reads a stored value's length without its text), then
        // the whole rows of those that fit the page's byte budget: an owner's page never loads more events than
        // the budget plus one, however large each is.
        List<Record3<Instant, UUID, Integer>> positions = dsl.select(M.DUE_AT, M.ID,
                        DSL.coalesce(DSL.octetLength(M.EVENT_JSON), 0))
                .from(M)
                .where(where)
                .orderBy(M.DUE_AT, M.ID)
                .limit(query.limit() + 1)
                .fetch();
        int taken = Math.min(query.limit(), Page.fitting(positions.stream()
                .map(p -> (long) p.value3() + ListQuery.ITEM_OVERHEAD_BYTES).toList(), query.maxBytes()));
        List<UUID> ids = positions.subList(0, taken).stream().map(Record3::value2).toList();
        List<ScheduledMessage> rows = ids.isEmpty() ? List.of() : dsl.selectFrom(M)
                .where(where.and(M.ID.in(ids)))
                .orderBy(M.DUE_AT, M.ID)
                .fetch(OwnerMessageRows::toMessage);
        if (taken == positions.size()) {
            return new Page(rows, Optional.empty());
        }
        Record3<Instant, UUID, Integer> last = positions.get(taken - 1);
        return new Page(rows, Optional.of(new Cursor(last.value1(), new ScheduleId(last.value2()))));
    }

    @Override
    public Optional<SeriesSummary> seriesSummary(PublicKey owner, SeriesId series) {
        Condition pending = StateLiterals.pending(M);
        var row = dsl.select(DSL.count(),
                        DSL.count().filterWhere(pending),
                        DSL.count().filterWhere(M.STATE.eq(DSL.inline(StateName.PUBLISHED.wireName()))),
                        DSL.count().filterWhere(M.STATE.eq(DSL.inline(StateName.CANCELLED.wireName()))),
                        DSL.count().filterWhere(M.STATE.eq(DSL.inline(StateName.FAILED.wireName()))),
                        min(M.DUE_AT).filterWhere(pending),
                        DSL.max(M.DUE_AT).filterWhere(pending))
                .from(M)
                .where(M.OWNER.eq(owner.hex())).and(M.SERIES_ID.eq(series.value()))
                .fetchSingle();
        if (row.value1() == 0) {
            return Optional.empty();
        }
        return Optional.of(new SeriesSummary(series, row.value1(), row.value2(), row.value3(), row.value4(),
                row.value5(), Optional.ofNullable(row.value6()), Optional.ofNullable(row.value7())));
    }

}

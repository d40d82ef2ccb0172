package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE;

import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminMessage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminPage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminQuery;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.MatchCount;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.Position;
import buzz.scheduled.application.port.out.AdminMessageQueries;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SelectField;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * Operators' message listing on PostgreSQL: metadata columns only ({@code event_json} is never selected; whether it
 * is still stored is read as {@code event_json IS NULL}), ordered by (due time, id), keyset paging; or one message
 * by its id.
 */
public final class PostgresAdminMessageQueries implements AdminMessageQueries {

    /** The metadata columns: never {@code event_json} itself, only whether it is still stored. */
    private static final List<SelectField<?>> COLUMNS = List.of(SCHEDULED_MESSAGE.ID, SCHEDULED_MESSAGE.OWNER,
            SCHEDULED_MESSAGE.CHANNEL, SCHEDULED_MESSAGE.REVISION, SCHEDULED_MESSAGE.STATE, SCHEDULED_MESSAGE.REASON,
            SCHEDULED_MESSAGE.EVENT_ID, SCHEDULED_MESSAGE.DUE_AT, SCHEDULED_MESSAGE.ATTEMPTS,
            SCHEDULED_MESSAGE.CREATED_AT, SCHEDULED_MESSAGE.UPDATED_AT, SCHEDULED_MESSAGE.FINISHED_AT,
            SCHEDULED_MESSAGE.LAST_ERROR, SCHEDULED_MESSAGE.EVENT_JSON.isNull().as("purged"));

    private final DSLContext dsl;

    /** Over {@code dataSource} (a pool; each call borrows one connection). */
    public PostgresAdminMessageQueries(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("admin message queries need a data source");
        }
        this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }

    @Override
    public AdminPage list(AdminQuery query) {
        var m = SCHEDULED_MESSAGE;
        Condition where = matching(query);
        if (query.after().isPresent()) {
            Position after = query.after().get();
            var position = DSL.row(m.DUE_AT, m.ID);
            where = where.and(query.latestFirst() ? position.lt(after.dueAt(), after.id().value())
                    : position.gt(after.dueAt(), after.id().value()));
        }
        List<AdminMessage> items = new ArrayList<>();
        Condition matching = where;
        var rows = SessionFaults.retriedOnce(() -> dsl.select(COLUMNS)
                .from(m)
                .where(matching)
                .orderBy(query.latestFirst() ? List.of(m.DUE_AT.desc(), m.ID.desc()) : List.of(m.DUE_AT.asc(),
                        m.ID.asc()))
                .limit(query.limit() + 1)
                .fetch());
        for (Record row : rows) {
            items.add(message(row));
        }
        Optional<Position> next = Optional.empty();
        if (items.size() > query.limit()) {
            items = items.subList(0, query.limit());
            AdminMessage last = items.getLast();
            next = Optional.of(new Position(last.dueAt(), last.id()));
        }
        return new AdminPage(items, next);
    }

    /** Counts in a sub-select cut at one past the cap, so a count over millions of rows stops early. */
    @Override
    public MatchCount count(AdminQuery query) {
        long counted = dsl.fetchCount(dsl.selectOne().from(SCHEDULED_MESSAGE).where(matching(query))
                .limit(MatchCount.CAP + 1));
        return new MatchCount(Math.min(counted, MatchCount.CAP), counted > MatchCount.CAP);
    }

    /** The query's filters: states, channel, owner, due range. */
    private static Condition matching(AdminQuery query) {
        var m = SCHEDULED_MESSAGE;
        Condition where = m.STATE.in(query.states().stream().sorted().map(DSL::inline).toList());
        if (query.channel().isPresent()) {
            where = where.and(m.CHANNEL.eq(query.channel().get().value()));
        }
        if (query.owner().isPresent()) {
            where = where.and(m.OWNER.eq(query.owner().get().hex()));
        }
        if (query.dueFrom().isPresent()) {
            where = where.and(m.DUE_AT.ge(query.dueFrom().get()));
        }
        if (query.dueBefore().isPresent()) {
            where = where.and(m.DUE_AT.lt(query.dueBefore().get()));
        }
        return where;
    }

    @Override
    public Optional<AdminMessage> find(ScheduleId id) {
        return SessionFaults.retriedOnce(() -> dsl.select(COLUMNS)
                .from(SCHEDULED_MESSAGE)
                .where(SCHEDULED_MESSAGE.ID.eq(id.value()))
                .fetchOptional()
                .map(PostgresAdminMessageQueries::message));
    }

    private static AdminMessage message(Record row) {
        var m = SCHEDULED_MESSAGE;
        return new AdminMessage(new ScheduleId(row.get(m.ID)), new PublicKey(row.get(m.OWNER)),
                new Channel(row.get(m.CHANNEL)), row.get(m.REVISION), row.get(m.STATE),
                Optional.ofNullable(row.get(m.REASON)), new EventId(row.get(m.EVENT_ID)), row.get(m.DUE_AT),
                row.get(m.ATTEMPTS), row.get(m.CREATED_AT), row.get(m.UPDATED_AT),
                Optional.ofNullable(row.get(m.FINISHED_AT)), Optional.ofNullable(row.get(m.LAST_ERROR)),
                row.get("purged", Boolean.class));
    }
}

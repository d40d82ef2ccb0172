package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Sequences.FENCING_TOKEN_SEQ;
import static buzz.scheduled.adapters.postgres.jooq.Tables.CHANNEL_TOMBSTONE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE_REVISION;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import buzz.scheduled.adapters.postgres.jooq.tables.ScheduledMessageTable;
import buzz.scheduled.adapters.postgres.jooq.tables.records.ScheduledMessageRecord;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.CancelMatchingResult;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.Selection;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Cursor;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase.SeriesSummary;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.MessageAdmission.WindowScope;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Duration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Row2;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The owner side's storage ports on PostgreSQL with jOOQ: its reads ({@link OwnerMessageQueries}), admission's
 * create ({@link MessageAdmission}) and its compare-and-set changes ({@link OwnerMessageChanges}). Every write is one
 * short transaction and a compare-and-set whose
 * row count is checked; every "is it due / has the lease expired" decision is {@code now()} inside the
 * statement that acts on it. No connection is held between calls; a call that meets an ended or read-only pooled
 * session runs once more on a new one ({@link SessionFaults#retriedOnce}). The dispatcher's statements are in
 * {@link PostgresDeliveryStore}.
 */
public final class PostgresScheduleStore implements OwnerMessageQueries, MessageAdmission, OwnerMessageChanges {

    private static final ScheduledMessageTable M = SCHEDULED_MESSAGE;
    private static final Field<Instant> NOW = DatabaseClock.NOW;
    // Advisory-lock namespaces (first key of pg_advisory_xact_lock(int, int)) serialising creates.
    private static final int OWNER_LOCK = 0x6275_0001;
    static final int CHANNEL_LOCK = 0x6275_0002;
    private static final Comparator<ScheduledMessage> BY_DUE = Comparator.comparing(ScheduledMessage::dueAt)
            .thenComparing(m -> m.id().value().toString());

    /**
     * A create in one statement and one round trip, on an autocommit connection (migration V10 says what it
     * checks, in the order of docs/openapi.yaml).
     */
    private static final String ADMIT = "SELECT outcome, existing_id, existing_event_id FROM admit_scheduled_message("
            + "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /**
     * A batch's items through the same function, one call per item in the batch's order (the nested loop calls the
     * lateral function once per row of the unnested arrays, in their order, and each call sees what the earlier ones
     * wrote), in one statement whose text does not depend on the batch's size.
     */
    private static final String ADMIT_BATCH = "SELECT a.outcome, a.existing_id, a.existing_event_id"
            + " FROM unnest(?::uuid[], ?::varchar[], ?::int[], ?::varchar[], ?::varchar[], ?::text[], ?::bigint[],"
            + " ?::bigint[], ?::varchar[], ?::bigint[], ?::bigint[], ?::uuid[]) WITH ORDINALITY"
            + " AS b(id, channel, revision, state, event_id, event_json, due, created, key, window_start, window_end,"
            + " series_id, position)"
            + " CROSS JOIN LATERAL admit_scheduled_message(?, ?, b.id, ?, b.channel, b.revision, b.state, b.event_id,"
            + " b.event_json, timestamptz 'epoch' + b.due * interval '1 microsecond',"
            + " timestamptz 'epoch' + b.created * interval '1 microsecond', b.key,"
            + " timestamptz 'epoch' + b.window_start * interval '1 microsecond',"
            + " timestamptz 'epoch' + b.window_end * interval '1 microsecond', ?, ?, ?, b.series_id) AS a"
            + " ORDER BY b.position";

    /** The owner's lock: taken before any channel's, as every create takes them. */
    private static final String LOCK_OWNER = "SELECT pg_advisory_xact_lock(?, hashtext(?))";
    /** A batch's channels' locks, in the order of their lock keys. */
    private static final String LOCK_CHANNELS = "SELECT count(pg_advisory_xact_lock(?, k)) FROM (SELECT DISTINCT"
            + " hashtext(c) AS k FROM unnest(?::varchar[]) AS c ORDER BY k) AS keys";

    private static final String CHANNEL_DELETED = "SELECT 1 FROM channel_tombstone WHERE channel = ?";

    private final DataSource dataSource;
    private final DSLContext dsl;

    /** A store over {@code dataSource} (a pool; each call borrows a connection and returns it). */
    public PostgresScheduleStore(DataSource dataSource) {
        this.dataSource = dataSource;
        this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }

    /**
     * The database clock ({@code now()}), for tools and tests that act on this store; the services read the store's
     * clock through their own ports ({@code StoreClock}, {@code DeliveryStore.now()}).
     */
    public Instant now() {
        return SessionFaults.retriedOnce(() -> dsl.select(NOW).fetchSingle().value1());
    }

    @Override
    public CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits) {
        if (!(message.state() instanceof ScheduleState.Scheduled) || message.attempts() != 0
                || message.state().fields().retryAt().isPresent()) {
            throw new IllegalArgumentException("a create stores a new scheduled message, got " + message.state());
        }
        Instant windowStart = limits.windowStart(message.dueAt());
        String eventJson = EventText.write(message.event().orElseThrow(() -> new IllegalArgumentException(
                "message " + message.id() + " has no event to store")));
        Admitted admitted = SessionFaults.retriedOnce(() -> admit(message, key, limits, windowStart, eventJson));
        // After the connection went back: a replay reads the stored message on a connection of its own.
        return result(admitted, message, limits, this::find);
    }

    /** What {@code admit_scheduled_message} answered: the outcome and, for a replay or conflict, the stored message. */
    private record Admitted(String outcome, UUID existingId, String existingEventId) {
    }

    /** One call of {@code admit_scheduled_message} (migration V10) on a pooled connection. */
    private Admitted admit(ScheduledMessage message, IdempotencyKey key, CreateLimits limits, Instant windowStart,
                           String eventJson) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement admit = connection.prepareStatement(ADMIT)) {
            int i = 0;
            admit.setInt(++i, OWNER_LOCK);
            admit.setInt(++i, CHANNEL_LOCK);
            admit.setObject(++i, message.id().value());
            admit.setString(++i, message.owner().hex());
            admit.setString(++i, message.channel().value());
            admit.setInt(++i, message.revision().number());
            admit.setString(++i, message.state().wireName());
            admit.setString(++i, message.eventId().hex());
            admit.setString(++i, eventJson);
            admit.setObject(++i, utc(message.dueAt()));
            admit.setObject(++i, utc(message.createdAt()));
            admit.setString(++i, key.key());
            admit.setObject(++i, utc(windowStart));
            admit.setObject(++i, utc(windowStart.plus(limits.channelWindow())));
            admit.setInt(++i, limits.maxPendingPerOwner());
            admit.setInt(++i, limits.limit(WindowScope.OWNER));
            admit.setInt(++i, limits.limit(WindowScope.CHANNEL));
            admit.setObject(++i, message.series().map(SeriesId::value).orElse(null));
            try (ResultSet row = admit.executeQuery()) {
                row.next();
                return new Admitted(row.getString(1), row.getObject(2, UUID.class), row.getString(3));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("admitting message " + message.id() + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * The create's result for what the function answered.
     *
     * @param stored reads the stored message a replay names
     */
    private static CreateResult result(Admitted admitted, ScheduledMessage message, CreateLimits limits,
                                       Function<ScheduleId, Optional<ScheduledMessage>> stored) {
        Instant windowStart = limits.windowStart(message.dueAt());
        return switch (admitted.outcome()) {
            case "created" -> new CreateResult.Created(message);
            case "replayed" -> new CreateResult.Replayed(stored.apply(new ScheduleId(admitted.existingId()))
                    .orElseThrow(() -> new IllegalStateException("idempotency key of " + message.owner()
                            + " names missing message " + admitted.existingId())));
            case "idempotency_conflict" -> new CreateResult.IdempotencyConflict(new ScheduleId(admitted.existingId()),
                    new EventId(admitted.existingEventId()));
            case "channel_deleted" -> new CreateResult.ChannelDeleted();
            case "too_many_pending" -> new CreateResult.TooManyPending(limits.maxPendingPerOwner());
            case "owner_window_full" -> new CreateResult.ChannelWindowFull(limits.limit(WindowScope.OWNER),
                    windowStart, WindowScope.OWNER);
            case "channel_window_full" -> new CreateResult.ChannelWindowFull(limits.limit(WindowScope.CHANNEL),
                    windowStart, WindowScope.CHANNEL);
            default -> throw new IllegalStateException("admit_scheduled_message answered " + admitted.outcome());
        };
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    /**
     * The whole batch in one transaction and three statements whatever its size: the owner's lock, then the batch's
     * channels' locks, taken up front in one order for every transaction (owner first, channels by lock key), so two
     * batches, or a batch and a create, an edit or a channel deletion, never wait on each other in a cycle (the
     * function takes the same locks again per entry, which a transaction holding them passes at once); then every
     * entry through
     * {@code admit_scheduled_message} — the function that admits a single create, the one place that compares a
     * create against the limits — in the batch's order ({@link #ADMIT_BATCH}). So each entry is decided exactly as
     * {@link #create} decides one, as if created one after the other: its key is found among the stored ones and the
     * earlier entries', and its counts include the entries stored before it.
     */
    @Override
    public List<CreateResult> createBatch(List<BatchEntry> entries, CreateLimits limits) {
        if (entries.isEmpty()) {
            return List.of();
        }
        PublicKey owner = entries.get(0).message().owner();
        int n = entries.size();
        UUID[] ids = new UUID[n];
        String[] channels = new String[n];
        Integer[] revisions = new Integer[n];
        String[] states = new String[n];
        String[] eventIds = new String[n];
        String[] events = new String[n];
        Long[] due = new Long[n];
        Long[] created = new Long[n];
        String[] keys = new String[n];
        Long[] windowStarts = new Long[n];
        Long[] windowEnds = new Long[n];
        UUID[] series = new UUID[n];
        for (int i = 0; i < n; i++) {
            ScheduledMessage message = entries.get(i).message();
            if (!message.owner().equals(owner)) {
                throw new IllegalArgumentException("a batch belongs to one owner; " + message.id() + " is "
                        + message.owner() + "'s, not " + owner + "'s");
            }
            if (!(message.state() instanceof ScheduleState.Scheduled) || message.attempts() != 0
                    || message.state().fields().retryAt().isPresent()) {
                throw new IllegalArgumentException("a create stores a new scheduled message, got " + message.state());
            }
            Instant windowStart = limits.windowStart(message.dueAt());
            ids[i] = message.id().value();
            channels[i] = message.channel().value();
            revisions[i] = message.revision().number();
            states[i] = message.state().wireName();
            eventIds[i] = message.eventId().hex();
            events[i] = EventText.write(message.event().orElseThrow(() -> new IllegalArgumentException(
                    "message " + message.id() + " has no event to store")));
            due[i] = micros(message.dueAt());
            created[i] = micros(message.createdAt());
            keys[i] = entries.get(i).key().key();
            windowStarts[i] = micros(windowStart);
            windowEnds[i] = micros(windowStart.plus(limits.channelWindow()));
            series[i] = message.series().map(SeriesId::value).orElse(null);
        }
        // A batch is as idempotent as a create: run again on a new session, its entries answer as replays.
        return SessionFaults.retriedOnce(() -> dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            List<Admitted> admitted = new ArrayList<>(n);
            tx.connection(connection -> {
                try (PreparedStatement lock = connection.prepareStatement(LOCK_OWNER)) {
                    lock.setInt(1, OWNER_LOCK);
                    lock.setString(2, owner.hex());
                    lock.executeQuery().close();
                }
                try (PreparedStatement lock = connection.prepareStatement(LOCK_CHANNELS)) {
                    lock.setInt(1, CHANNEL_LOCK);
                    lock.setArray(2, connection.createArrayOf("varchar",
                            java.util.Arrays.stream(channels).distinct().toArray(String[]::new)));
                    lock.executeQuery().close();
                }
                try (PreparedStatement admit = connection.prepareStatement(ADMIT_BATCH)) {
                    int i = 0;
                    admit.setArray(++i, connection.createArrayOf("uuid", ids));
                    admit.setArray(++i, connection.createArrayOf("varchar", channels));
                    admit.setArray(++i, connection.createArrayOf("int4", revisions));
                    admit.setArray(++i, connection.createArrayOf("varchar", states));
                    admit.setArray(++i, connection.createArrayOf("varchar", eventIds));
                    admit.setArray(++i, connection.createArrayOf("text", events));
                    admit.setArray(++i, connection.createArrayOf("int8", due));
                    admit.setArray(++i, connection.createArrayOf("int8", created));
                    admit.setArray(++i, connection.createArrayOf("varchar", keys));
                    admit.setArray(++i, connection.createArrayOf("int8", windowStarts));
                    admit.setArray(++i, connection.createArrayOf("int8", windowEnds));
                    admit.setArray(++i, connection.createArrayOf("uuid", series));
                    admit.setInt(++i, OWNER_LOCK);
                    admit.setInt(++i, CHANNEL_LOCK);
                    admit.setString(++i, owner.hex());
                    admit.setInt(++i, limits.maxPendingPerOwner());
                    admit.setInt(++i, limits.limit(WindowScope.OWNER));
                    admit.setInt(++i, limits.limit(WindowScope.CHANNEL));
                    try (ResultSet rows = admit.executeQuery()) {
                        while (rows.next()) {
                            admitted.add(new Admitted(rows.getString(1), rows.getObject(2, UUID.class),
                                    rows.getString(3)));
                        }
                    }
                }
            });
            if (admitted.size() != n) {
                throw new IllegalStateException("admit_scheduled_message answered " + admitted.size() + " of " + n
                        + " batch entries");
            }
            // The messages replays name, read in the same transaction (an earlier entry of this batch included).
            List<UUID> replayed = admitted.stream().filter(a -> a.outcome().equals("replayed"))
                    .map(Admitted::existingId).distinct().toList();
            Map<ScheduleId, ScheduledMessage> stored = new HashMap<>();
            if (!replayed.isEmpty()) {
                tx.selectFrom(M).where(M.ID.in(replayed)).fetch()
                        .forEach(r -> stored.put(new ScheduleId(r.getId()), toMessage(r)));
            }
            List<CreateResult> results = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                results.add(result(admitted.get(i), entries.get(i).message(), limits,
                        id -> Optional.ofNullable(stored.get(id))));
            }
            return results;
        }));
    }

    /** {@code instant} in whole microseconds since the epoch (PostgreSQL's resolution; finer parts dropped). */
    private static long micros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
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

    /**
     * One UPDATE of the matching rows in the states the domain's table lets an owner cancel, writing what
     * {@link ScheduledMessage#cancel} writes ({@link TerminalWrites}; checked state by state against it by the
     * transition contract test), then the count of matching rows being sent — one transaction.
     */
    @Override
    public CancelMatchingResult.Cancelled cancelMatching(PublicKey owner, Selection selection) {
        Condition matching = M.OWNER.eq(owner.hex());
        if (selection.channel().isPresent()) {
            matching = matching.and(M.CHANNEL.eq(selection.channel().get().value()));
        }
        if (selection.series().isPresent()) {
            matching = matching.and(M.SERIES_ID.eq(selection.series().get().value()));
        }
        if (selection.dueAfter().isPresent()) {
            matching = matching.and(M.DUE_AT.ge(selection.dueAfter().get()));
        }
        if (selection.dueBefore().isPresent()) {
            matching = matching.and(M.DUE_AT.lt(selection.dueBefore().get()));
        }
        Condition where = matching;
        return dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            List<UUID> cancelled = TerminalWrites.end(tx, where, StateLiterals.CANCELLABLE,
                    StateLiterals.CANCELLED_INTO, Optional.empty());
            int sending = tx.select(DSL.count()).from(M)
                    .where(where.and(M.STATE.in(StateLiterals.DISPATCHING)))
                    .fetchSingle().value1();
            return new CancelMatchingResult.Cancelled(cancelled.size(), sending);
        });
    }

    /** Pending messages due in {@code channel}'s window, of {@code owner} if given, not counting {@code except}. */
    private static Select<Record1<Integer>> windowCount(DSLContext dsl, String channel, Optional<String> owner,
                                                        Instant windowStart, Instant windowEnd,
                                                        Optional<UUID> except) {
        Condition where = M.CHANNEL.eq(channel).and(StateLiterals.pending(M))
                .and(M.DUE_AT.ge(windowStart)).and(M.DUE_AT.lt(windowEnd));
        if (owner.isPresent()) {
            where = where.and(M.OWNER.eq(owner.get()));
        }
        if (except.isPresent()) {
            where = where.and(M.ID.ne(except.get()));
        }
        return dsl.select(DSL.count()).from(M).where(where);
    }

    @Override
    public Optional<ScheduledMessage> find(ScheduleId id) {
        return SessionFaults.retriedOnce(() -> find(dsl, id));
    }

    private static Optional<ScheduledMessage> find(DSLContext ctx, ScheduleId id) {
        return ctx.selectFrom(M).where(M.ID.eq(id.value())).fetchOptional().map(PostgresScheduleStore::toMessage);
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
                .fetch(PostgresScheduleStore::toMessage);
        if (taken == positions.size()) {
            return new Page(rows, Optional.empty());
        }
        Record3<Instant, UUID, Integer> last = positions.get(taken - 1);
        return new Page(rows, Optional.of(new Cursor(last.value1(), new ScheduleId(last.value2()))));
    }

    @Override
    public boolean replace(ScheduledMessage expected,
                           ScheduledMessage next) {
        return SessionFaults.retriedOnce(() -> replaceRow(expected, next));
    }

    private boolean replaceRow(ScheduledMessage expected, ScheduledMessage next) {
        if (!expected.id().equals(next.id())) {
            throw new IllegalArgumentException("replace must keep the id: " + expected.id() + " vs " + next.id());
        }
        boolean newRevision = !next.revision().equals(expected.revision());
        boolean purge = next.event().isEmpty();
        if (!newRevision && !purge) {
            // One statement (the delivery path: pre-send step, publish, retry): autocommit, no transaction
            // round trips.
            return compareAndSet(dsl, expected, next);
        }
        return dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            if (!compareAndSet(tx, expected, next)) {
                return false;
            }
            if (newRevision) {
                insertRevision(tx, next);
            }
            if (purge) {
                // Purged (cancel, terminal failure): no copy of any revision's event may stay behind.
                tx.update(SCHEDULED_MESSAGE_REVISION)
                        .setNull(SCHEDULED_MESSAGE_REVISION.EVENT_JSON)
                        .where(SCHEDULED_MESSAGE_REVISION.MESSAGE_ID.eq(next.id().value()))
                        .and(SCHEDULED_MESSAGE_REVISION.EVENT_JSON.isNotNull())
                        .execute();
            }
            return true;
        });
    }

    @Override
    public ReviseResult replaceRevision(ScheduledMessage expected, ScheduledMessage next, CreateLimits limits) {
        if (!expected.id().equals(next.id())) {
            throw new IllegalArgumentException("replace must keep the id: " + expected.id() + " vs " + next.id());
        }
        return SessionFaults.retriedOnce(() -> dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            String channel = next.channel().value();
            // The lock creates and channel deletions take: a deletion either sees this revision (and fails it) or
            // this revision sees the tombstone.
            tx.select(DSL.field("pg_advisory_xact_lock({0}, hashtext({1}))", Object.class, val(CHANNEL_LOCK), val(channel)))
                    .fetch();
            if (tx.fetchExists(CHANNEL_TOMBSTONE, CHANNEL_TOMBSTONE.CHANNEL.eq(channel))) {
                return new ReviseResult.ChannelDeleted();
            }
            Instant windowStart = limits.windowStart(next.dueAt());
            Instant windowEnd = windowStart.plus(limits.channelWindow());
            Optional<UUID> self = Optional.of(next.id().value());
            Record2<Integer, Integer> counts = tx.select(
                    DSL.field(windowCount(tx, channel, Optional.of(next.owner().hex()), windowStart, windowEnd, self)),
                    DSL.field(windowCount(tx, channel, Optional.empty(), windowStart, windowEnd, self)))
                    .fetchSingle();
            Optional<WindowScope> full = limits.fullWindow(counts.value1(), counts.value2());
            if (full.isPresent()) {
                return new ReviseResult.ChannelWindowFull(limits.limit(full.get()), windowStart, full.get());
            }
            if (!compareAndSet(tx, expected, next)) {
                return new ReviseResult.Lost();
            }
            if (!next.revision().equals(expected.revision())) {
                insertRevision(tx, next);
                // Only the latest revisionsKept revisions keep their event (the primary key finds them); the
                // older ones keep their number, event id and time until retention deletes the message.
                tx.update(SCHEDULED_MESSAGE_REVISION)
                        .setNull(SCHEDULED_MESSAGE_REVISION.EVENT_JSON)
                        .where(SCHEDULED_MESSAGE_REVISION.MESSAGE_ID.eq(next.id().value()))
                        .and(SCHEDULED_MESSAGE_REVISION.REVISION.le(next.revision().number() - limits.revisionsKept()))
                        .and(SCHEDULED_MESSAGE_REVISION.EVENT_JSON.isNotNull())
                        .execute();
            }
            return new ReviseResult.Replaced();
        }));
    }

    /** The conditional UPDATE on (id, state, revision, token) with its row-count check. */
    private static boolean compareAndSet(DSLContext ctx, ScheduledMessage expected, ScheduledMessage next) {
        ScheduledMessageRecord values = toRecord(next);
        values.changed(M.ID, false);
        values.changed(M.CREATED_AT, false);
        Condition stillAsRead = M.ID.eq(expected.id().value())
                .and(M.STATE.eq(expected.state().wireName()))
                .and(M.REVISION.eq(expected.revision().number()))
                .and(expected.token().isPresent()
                        ? M.FENCING_TOKEN.eq(expected.token().get().value())
                        : M.FENCING_TOKEN.isNull());
        // Same claim before and after (the pre-send step): a lease renewed since `expected` was read must not
        // be shortened by writing back the older lease end.
        boolean sameClaim = expected.token().isPresent() && expected.token().equals(next.token());
        int changed;
        if (sameClaim) {
            values.changed(M.LEASE_UNTIL, false);
            changed = ctx.update(M).set(values)
                    .set(M.LEASE_UNTIL, DSL.greatest(M.LEASE_UNTIL, val(values.getLeaseUntil())))
                    .where(stillAsRead).execute();
        } else {
            changed = ctx.update(M).set(values).where(stillAsRead).execute();
        }
        if (changed > 1) {
            throw new IllegalStateException("compare-and-set on " + expected.id() + " changed " + changed + " rows");
        }
        return changed == 1;
    }

    @Override
    public boolean channelDeleted(Channel channel) {
        // Asked by every create before its access check: plain JDBC, no SQL rendered per call.
        return SessionFaults.retriedOnce(() -> tombstoned(channel));
    }

    private boolean tombstoned(Channel channel) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement deleted = connection.prepareStatement(CHANNEL_DELETED)) {
            deleted.setString(1, channel.value());
            try (ResultSet row = deleted.executeQuery()) {
                return row.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the tombstone of channel " + channel + " failed: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public Set<Channel> deletedChannels(Collection<Channel> channels) {
        if (channels.isEmpty()) {
            return Set.of();
        }
        return Set.copyOf(dsl.select(CHANNEL_TOMBSTONE.CHANNEL).from(CHANNEL_TOMBSTONE)
                .where(CHANNEL_TOMBSTONE.CHANNEL.eq(any(channels.stream().map(Channel::value).toArray(String[]::new))))
                .fetch(r -> new Channel(r.value1())));
    }

    private static void insertRevision(DSLContext tx, ScheduledMessage message) {
        revisionInsert(tx, message).execute();
    }

    private static Query revisionInsert(DSLContext tx, ScheduledMessage message) {
        NostrEvent event = message.event().orElseThrow(() -> new IllegalArgumentException(
                "revision " + message.revision() + " of " + message.id() + " has no event"));
        return tx.insertInto(SCHEDULED_MESSAGE_REVISION)
                .set(SCHEDULED_MESSAGE_REVISION.MESSAGE_ID, message.id().value())
                .set(SCHEDULED_MESSAGE_REVISION.REVISION, message.revision().number())
                .set(SCHEDULED_MESSAGE_REVISION.EVENT_ID, message.eventId().hex())
                .set(SCHEDULED_MESSAGE_REVISION.EVENT_JSON, EventText.write(event))
                .set(SCHEDULED_MESSAGE_REVISION.CREATED_AT, message.updatedAt());
    }

    private static ScheduledMessageRecord toRecord(ScheduledMessage message) {
        ScheduledMessageRecord r = new ScheduledMessageRecord();
        r.setId(message.id().value());
        r.setOwner(message.owner().hex());
        r.setChannel(message.channel().value());
        r.setRevision(message.revision().number());
        r.setState(message.state().wireName());
        r.setEventId(message.eventId().hex());
        r.setEventJson(message.event().map(EventText::write).orElse(null));
        r.setDueAt(message.dueAt());
        r.setAttempts(message.attempts());
        r.setCreatedAt(message.createdAt());
        r.setUpdatedAt(message.updatedAt());
        ScheduleState.Fields state = message.state().fields();
        r.setRetryAt(state.retryAt().orElse(null));
        r.setFencingToken(state.token().map(FencingToken::value).orElse(null));
        r.setLeaseUntil(state.leaseUntil().orElse(null));
        r.setFinishedAt(state.finishedAt().orElse(null));
        r.setReason(state.reason().map(FailureReason::wireName).orElse(null));
        r.setSeriesId(message.series().map(SeriesId::value).orElse(null));
        return r;
    }

    /** Rebuilds the aggregate through its own constructors, so a row that breaks a rule fails loudly. */
    private static ScheduledMessage toMessage(ScheduledMessageRecord r) {
        StateName name = StateName.fromWireName(r.getState());
        // The claim leaves retry_at as it was (it keys the claimable index; a HOT update changes no key), so only a
        // state that waits for a retry reads it.
        Optional<Instant> retryAt = name.waitsForRetry() ? Optional.ofNullable(r.getRetryAt()) : Optional.empty();
        ScheduleState state = ScheduleState.of(new ScheduleState.Fields(name,
                retryAt, Optional.ofNullable(r.getFencingToken()).map(FencingToken::new),
                Optional.ofNullable(r.getLeaseUntil()), Optional.ofNullable(r.getFinishedAt()),
                Optional.ofNullable(r.getReason()).map(FailureReason::fromWireName)));
        return new ScheduledMessage(
                new ScheduleId(r.getId()),
                new PublicKey(r.getOwner()),
                new Channel(r.getChannel()),
                new Revision(r.getRevision()),
                new EventId(r.getEventId()),
                r.getDueAt(),
                Optional.ofNullable(r.getEventJson()).map(EventText::read),
                state,
                r.getAttempts(),
                r.getCreatedAt(),
                r.getUpdatedAt(),
                Optional.ofNullable(r.getSeriesId()).map(SeriesId::new));
    }

    private static void requirePositive(String name, Duration duration) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + duration);
        }
    }
}

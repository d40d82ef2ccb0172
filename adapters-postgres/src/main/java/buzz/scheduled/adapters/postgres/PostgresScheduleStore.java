package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Sequences.FENCING_TOKEN_SEQ;
import static buzz.scheduled.adapters.postgres.jooq.Tables.CHANNEL_TOMBSTONE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.IDEMPOTENCY_KEY;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE;
import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE_REVISION;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.array;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.least;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
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
import buzz.scheduled.application.port.out.MessageAdmission.LimitFacts;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Record4;
import org.jooq.Row2;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.UpdateResultStep;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The owner side's storage ports on PostgreSQL with jOOQ: its reads ({@link OwnerMessageQueries}), admission's
 * create ({@link MessageAdmission}) and its compare-and-set changes ({@link OwnerMessageChanges}). Every write is one
 * short transaction and a compare-and-set whose
 * row count is checked; every "is it due / has the lease expired" decision is {@code now()} inside the
 * statement that acts on it. No connection is held between calls. The dispatcher's statements are in
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

    private final DSLContext dsl;

    /** A store over {@code dataSource} (a pool; each call borrows a connection and returns it). */
    public PostgresScheduleStore(DataSource dataSource) {
        this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }

    /**
     * The database clock ({@code now()}), for tools and tests that act on this store; the services read the store's
     * clock through their own ports ({@code StoreClock}, {@code DeliveryStore.now()}).
     */
    public Instant now() {
        return dsl.select(NOW).fetchSingle().value1();
    }

    @Override
    public CreateResult create(ScheduledMessage message, IdempotencyKey key,
                               CreateLimits limits) {
        return dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            String owner = message.owner().hex();
            // One create at a time per owner (idempotency key and pending count) and per channel (window count):
            // concurrent creates queue here instead of both passing a limit. Owner before channel, always.
            tx.select(DSL.field("pg_advisory_xact_lock({0}, hashtext({1}))", Object.class, val(OWNER_LOCK), val(owner)))
                    .fetch();
            Record2<UUID, String> existingKey = tx.select(IDEMPOTENCY_KEY.MESSAGE_ID, IDEMPOTENCY_KEY.EVENT_ID)
                    .from(IDEMPOTENCY_KEY)
                    .where(IDEMPOTENCY_KEY.OWNER.eq(owner).and(IDEMPOTENCY_KEY.KEY.eq(key.key())))
                    .fetchOne();
            if (existingKey != null) {
                ScheduleId existingId = new ScheduleId(existingKey.value1());
                EventId fingerprint = new EventId(existingKey.value2());
                if (!fingerprint.equals(message.eventId())) {
                    return new CreateResult.IdempotencyConflict(existingId, fingerprint);
                }
                return new CreateResult.Replayed(find(tx, existingId).orElseThrow(() -> new IllegalStateException(
                        "idempotency key of " + owner + " names missing message " + existingId)));
            }
            String channel = message.channel().value();
            tx.select(DSL.field("pg_advisory_xact_lock({0}, hashtext({1}))", Object.class, val(CHANNEL_LOCK), val(channel)))
                    .fetch();
            Instant windowStart = limits.windowStart(message.dueAt());
            Instant windowEnd = windowStart.plus(limits.channelWindow());
            // The limit reads in one round trip: tombstone, the owner's pending count, the owner's and the
            // whole channel's counts in the due window.
            Record4<Boolean, Integer, Integer, Integer> facts = limitFacts(tx, owner, channel, windowStart, windowEnd)
                    .fetchSingle();
            Optional<CreateResult> refused = limits.refusal(new LimitFacts(facts.value1(), facts.value2(),
                    facts.value3(), facts.value4(), windowStart));
            if (refused.isPresent()) {
                return refused.get();
            }
            // The message, its first revision and its idempotency key: three prepared statements with bind
            // values. (A JDBC batch of the three would save two round trips, but jOOQ sends a batch of different
            // statements with their values inlined, which PostgreSQL then parses and plans afresh each time.)
            tx.insertInto(M).set(toRecord(message)).execute();
            revisionInsert(tx, message).execute();
            tx.insertInto(IDEMPOTENCY_KEY)
                    .set(IDEMPOTENCY_KEY.OWNER, owner)
                    .set(IDEMPOTENCY_KEY.KEY, key.key())
                    .set(IDEMPOTENCY_KEY.MESSAGE_ID, message.id().value())
                    .set(IDEMPOTENCY_KEY.EVENT_ID, message.eventId().hex())
                    .set(IDEMPOTENCY_KEY.CREATED_AT, message.createdAt())
                    .execute();
            return new CreateResult.Created(message);
        });
    }

    /**
     * The whole batch in one transaction and a handful of statements whatever its size: the owner's lock, the channels'
     * locks (in one order for every transaction: by the lock key), then one read each for the stored keys, the
     * tombstones, the owner's pending count and the window counts of every (channel, window) the batch touches. Each
     * entry is then decided in order exactly as {@link #create} decides one — its key among the stored ones and the
     * earlier entries', then {@link CreateLimits#refusal} over the counts read plus the entries already accepted —
     * and the accepted ones are written with one insert per table ({@link #insertBatch}).
     */
    @Override
    public List<CreateResult> createBatch(List<BatchEntry> entries, CreateLimits limits) {
        if (entries.isEmpty()) {
            return List.of();
        }
        PublicKey ownerKey = entries.get(0).message().owner();
        for (BatchEntry entry : entries) {
            if (!entry.message().owner().equals(ownerKey)) {
                throw new IllegalArgumentException("a batch belongs to one owner; " + entry.message().id() + " is "
                        + entry.message().owner() + "'s, not " + ownerKey + "'s");
            }
        }
        String owner = ownerKey.hex();
        return dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            tx.select(DSL.field("pg_advisory_xact_lock({0}, hashtext({1}))", Object.class, val(OWNER_LOCK), val(owner)))
                    .fetch();
            String[] channels = entries.stream().map(e -> e.message().channel().value()).distinct()
                    .toArray(String[]::new);
            // Sorted by the lock key, so two batches (or a batch and a single create) never wait for each other's
            // channels in opposite orders.
            tx.fetch("SELECT pg_advisory_xact_lock(?, k) FROM (SELECT DISTINCT hashtext(c) AS k"
                    + " FROM unnest(?::varchar[]) AS c ORDER BY k) AS locks", CHANNEL_LOCK, channels);
            BatchFacts facts = batchFacts(tx, owner, entries, channels, limits);
            List<CreateResult> results = new ArrayList<>(entries.size());
            Map<String, ScheduledMessage> acceptedKeys = new HashMap<>();
            List<BatchEntry> accepted = new ArrayList<>();
            long pending = facts.pending();
            for (BatchEntry entry : entries) {
                ScheduledMessage message = entry.message();
                StoredKey stored = facts.keys().get(entry.key().key());
                ScheduledMessage earlier = acceptedKeys.get(entry.key().key());
                if (stored != null) {
                    results.add(stored.eventId().equals(message.eventId())
                            ? new CreateResult.Replayed(facts.replayed().get(stored.messageId()))
                            : new CreateResult.IdempotencyConflict(new ScheduleId(stored.messageId()),
                            stored.eventId()));
                    continue;
                }
                if (earlier != null) {
                    results.add(earlier.eventId().equals(message.eventId()) ? new CreateResult.Replayed(earlier)
                            : new CreateResult.IdempotencyConflict(earlier.id(), earlier.eventId()));
                    continue;
                }
                Instant windowStart = limits.windowStart(message.dueAt());
                WindowKey window = new WindowKey(message.channel().value(), windowStart);
                long[] counts = facts.windows().get(window);
                Optional<CreateResult> refused = limits.refusal(new LimitFacts(
                        facts.deleted().contains(window.channel()), pending, counts[0], counts[1], windowStart));
                if (refused.isPresent()) {
                    results.add(refused.get());
                    continue;
                }
                pending++;
                counts[0]++;
                counts[1]++;
                acceptedKeys.put(entry.key().key(), message);
                accepted.add(entry);
                results.add(new CreateResult.Created(message));
            }
            if (!accepted.isEmpty()) {
                insertBatch(tx, accepted);
            }
            return results;
        });
    }

    /** A channel and the start of one of its due windows. */
    private record WindowKey(String channel, Instant windowStart) {
    }

    /** A stored idempotency key's message and the event id it was used for. */
    private record StoredKey(UUID messageId, EventId eventId) {
    }

    /**
     * What a batch's decisions read, under its locks.
     *
     * @param keys     the owner's stored idempotency keys among the batch's: message id and event id by key
     * @param replayed the stored messages those keys name, by id
     * @param deleted  the batch's channels that have a tombstone
     * @param pending  the owner's pending count
     * @param windows  per (channel, window) the batch touches: {owner's pending due in it, everyone's}, counted up
     *                 as entries are accepted
     */
    private record BatchFacts(Map<String, StoredKey> keys, Map<UUID, ScheduledMessage> replayed,
                              Set<String> deleted, long pending, Map<WindowKey, long[]> windows) {
    }

    private static BatchFacts batchFacts(DSLContext tx, String owner, List<BatchEntry> entries, String[] channels,
                                         CreateLimits limits) {
        Map<String, StoredKey> keys = new HashMap<>();
        tx.select(IDEMPOTENCY_KEY.KEY, IDEMPOTENCY_KEY.MESSAGE_ID, IDEMPOTENCY_KEY.EVENT_ID)
                .from(IDEMPOTENCY_KEY)
                .where(IDEMPOTENCY_KEY.OWNER.eq(owner))
                .and(IDEMPOTENCY_KEY.KEY.eq(any(entries.stream().map(e -> e.key().key()).toArray(String[]::new))))
                .fetch()
                .forEach(r -> keys.put(r.value1(), new StoredKey(r.value2(), new EventId(r.value3()))));
        Map<UUID, ScheduledMessage> replayed = new HashMap<>();
        if (!keys.isEmpty()) {
            List<UUID> ids = keys.values().stream().map(StoredKey::messageId).distinct().toList();
            tx.selectFrom(M).where(M.ID.in(ids)).fetch().forEach(r -> replayed.put(r.getId(), toMessage(r)));
        }
        Set<String> deleted = new HashSet<>(tx.select(CHANNEL_TOMBSTONE.CHANNEL).from(CHANNEL_TOMBSTONE)
                .where(CHANNEL_TOMBSTONE.CHANNEL.eq(any(channels))).fetch(Record1::value1));
        long pending = tx.select(DSL.count()).from(M).where(M.OWNER.eq(owner)).and(StateLiterals.pending(M))
                .fetchSingle().value1();
        List<WindowKey> windows = entries.stream()
                .map(e -> new WindowKey(e.message().channel().value(), limits.windowStart(e.message().dueAt())))
                .distinct().toList();
        Map<WindowKey, long[]> counts = new HashMap<>();
        // Each (channel, window) counted by the same index range scans as a single create's limitFacts.
        tx.fetch("SELECT w.channel, w.start,"
                        + " (SELECT count(*) FROM scheduled_message m WHERE m.channel = w.channel AND m.owner = ?"
                        + " AND m.finished_at IS NULL AND m.due_at >= to_timestamp(w.start)"
                        + " AND m.due_at < to_timestamp(w.start + ?)),"
                        + " (SELECT count(*) FROM scheduled_message m WHERE m.channel = w.channel"
                        + " AND m.finished_at IS NULL AND m.due_at >= to_timestamp(w.start)"
                        + " AND m.due_at < to_timestamp(w.start + ?))"
                        + " FROM unnest(?::varchar[], ?::bigint[]) AS w(channel, start)",
                        owner, limits.channelWindow().toSeconds(), limits.channelWindow().toSeconds(),
                        windows.stream().map(WindowKey::channel).toArray(String[]::new),
                        windows.stream().map(w -> w.windowStart().getEpochSecond()).toArray(Long[]::new))
                .forEach(r -> counts.put(new WindowKey(r.get(0, String.class),
                                Instant.ofEpochSecond(r.get(1, Long.class))),
                        new long[] {r.get(2, Long.class), r.get(3, Long.class)}));
        return new BatchFacts(keys, replayed, deleted, pending, counts);
    }

    /** A batch's messages: one row per element of the arrays bound, the same statement text for any batch size. */
    private static final String INSERT_MESSAGES = "INSERT INTO scheduled_message (id, owner, channel, revision, state,"
            + " event_id, event_json, due_at, attempts, created_at, updated_at, series_id)"
            + " SELECT m.id, m.owner, m.channel, m.revision, m.state, m.event_id, m.event_json,"
            + " timestamptz 'epoch' + m.due * interval '1 microsecond', m.attempts,"
            + " timestamptz 'epoch' + m.created * interval '1 microsecond',"
            + " timestamptz 'epoch' + m.updated * interval '1 microsecond', m.series_id"
            + " FROM unnest(?::uuid[], ?::varchar[], ?::varchar[], ?::int[], ?::varchar[], ?::varchar[], ?::text[],"
            + " ?::bigint[], ?::int[], ?::bigint[], ?::bigint[], ?::uuid[])"
            + " AS m(id, owner, channel, revision, state, event_id, event_json, due, attempts, created, updated,"
            + " series_id)";
    /** A batch's first revisions. */
    private static final String INSERT_REVISIONS = "INSERT INTO scheduled_message_revision (message_id, revision,"
            + " event_id, event_json, created_at)"
            + " SELECT r.message_id, r.revision, r.event_id, r.event_json,"
            + " timestamptz 'epoch' + r.created * interval '1 microsecond'"
            + " FROM unnest(?::uuid[], ?::int[], ?::varchar[], ?::text[], ?::bigint[])"
            + " AS r(message_id, revision, event_id, event_json, created)";
    /** A batch's idempotency keys. */
    private static final String INSERT_KEYS = "INSERT INTO idempotency_key (owner, key, message_id, event_id,"
            + " created_at)"
            + " SELECT k.owner, k.key, k.message_id, k.event_id, timestamptz 'epoch' + k.created * interval"
            + " '1 microsecond'"
            + " FROM unnest(?::varchar[], ?::varchar[], ?::uuid[], ?::varchar[], ?::bigint[])"
            + " AS k(owner, key, message_id, event_id, created)";

    /**
     * The accepted entries' messages, first revisions and keys: one statement per table whose text does not depend on
     * the batch's size (rows bound as arrays and unnested), so pgjdbc prepares it once on the server and neither
     * jOOQ nor PostgreSQL renders or plans a hundred-row VALUES list per batch. Written as {@link #create} writes one
     * message (the columns a new {@code scheduled} message has; the rest keep their defaults, NULL).
     */
    private static void insertBatch(DSLContext tx, List<BatchEntry> accepted) {
        int n = accepted.size();
        UUID[] ids = new UUID[n];
        String[] owners = new String[n];
        String[] channels = new String[n];
        Integer[] revisions = new Integer[n];
        String[] states = new String[n];
        String[] eventIds = new String[n];
        String[] events = new String[n];
        Long[] due = new Long[n];
        Integer[] attempts = new Integer[n];
        Long[] created = new Long[n];
        Long[] updated = new Long[n];
        UUID[] series = new UUID[n];
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            ScheduledMessage message = accepted.get(i).message();
            ScheduleState.Fields fields = message.state().fields();
            if (!(message.state() instanceof ScheduleState.Scheduled) || fields.retryAt().isPresent()
                    || !message.revision().equals(Revision.FIRST)) {
                throw new IllegalArgumentException("a batch stores newly admitted messages (scheduled, revision 1),"
                        + " not " + message.id() + " in " + message.state().wireName() + " at " + message.revision());
            }
            ids[i] = message.id().value();
            owners[i] = message.owner().hex();
            channels[i] = message.channel().value();
            revisions[i] = message.revision().number();
            states[i] = message.state().wireName();
            eventIds[i] = message.eventId().hex();
            events[i] = EventText.write(message.event().orElseThrow());
            due[i] = micros(message.dueAt());
            attempts[i] = message.attempts();
            created[i] = micros(message.createdAt());
            updated[i] = micros(message.updatedAt());
            series[i] = message.series().map(SeriesId::value).orElse(null);
            keys[i] = accepted.get(i).key().key();
        }
        tx.connection(connection -> {
            insert(connection, INSERT_MESSAGES, n, array(connection, "uuid", ids), array(connection, "varchar", owners),
                    array(connection, "varchar", channels), array(connection, "int4", revisions),
                    array(connection, "varchar", states), array(connection, "varchar", eventIds),
                    array(connection, "text", events), array(connection, "int8", due),
                    array(connection, "int4", attempts), array(connection, "int8", created),
                    array(connection, "int8", updated), array(connection, "uuid", series));
            insert(connection, INSERT_REVISIONS, n, array(connection, "uuid", ids), array(connection, "int4", revisions),
                    array(connection, "varchar", eventIds), array(connection, "text", events),
                    array(connection, "int8", updated));
            insert(connection, INSERT_KEYS, n, array(connection, "varchar", owners), array(connection, "varchar", keys),
                    array(connection, "uuid", ids), array(connection, "varchar", eventIds),
                    array(connection, "int8", created));
        });
    }

    private static java.sql.Array array(java.sql.Connection connection, String type, Object[] values)
            throws java.sql.SQLException {
        return connection.createArrayOf(type, values);
    }

    /** Runs one of the batch inserts and checks it wrote a row per element. */
    private static void insert(java.sql.Connection connection, String sql, int rows, java.sql.Array... arrays)
            throws java.sql.SQLException {
        try (java.sql.PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < arrays.length; i++) {
                statement.setArray(i + 1, arrays[i]);
            }
            int written = statement.executeUpdate();
            if (written != rows) {
                throw new IllegalStateException("a batch insert wrote " + written + " rows, not " + rows);
            }
        }
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

    /**
     * A create's limit reads as one statement (package-private so a test can EXPLAIN it): whether the channel has a
     * tombstone, the owner's pending count, the owner's pending count in the channel's due window (index
     * {@code scheduled_message_channel_owner_pending_idx}), and the whole channel's.
     */
    static Select<Record4<Boolean, Integer, Integer, Integer>> limitFacts(DSLContext dsl, String owner,
                                                                          String channel, Instant windowStart,
                                                                          Instant windowEnd) {
        return dsl.select(
                DSL.field(DSL.exists(selectOne().from(CHANNEL_TOMBSTONE).where(CHANNEL_TOMBSTONE.CHANNEL.eq(channel)))),
                DSL.field(select(DSL.count()).from(M).where(M.OWNER.eq(owner)).and(StateLiterals.pending(M))),
                DSL.field(windowCount(dsl, channel, Optional.of(owner), windowStart, windowEnd, Optional.empty())),
                DSL.field(windowCount(dsl, channel, Optional.empty(), windowStart, windowEnd, Optional.empty())));
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
        return find(dsl, id);
    }

    private static Optional<ScheduledMessage> find(DSLContext ctx, ScheduleId id) {
        return ctx.selectFrom(M).where(M.ID.eq(id.value())).fetchOptional().map(PostgresScheduleStore::toMessage);
    }

    @Override
    public Page list(ListQuery query) {
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
        return dsl.transactionResult(configuration -> {
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
        });
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
        return dsl.fetchExists(CHANNEL_TOMBSTONE, CHANNEL_TOMBSTONE.CHANNEL.eq(channel.value()));
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

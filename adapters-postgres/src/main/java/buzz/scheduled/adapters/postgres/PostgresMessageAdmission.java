package buzz.scheduled.adapters.postgres;


import buzz.scheduled.adapters.postgres.jooq.tables.ScheduledMessageTable;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.MessageAdmission.WindowScope;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/**
 * Admission's storage port ({@link MessageAdmission}) on PostgreSQL. A create alone is one statement through
 * {@code admit_scheduled_message} (migration V17); creates that arrive while earlier ones are being admitted are
 * admitted together, up to {@link #MAX_GROUP} in one statement through {@code admit_scheduled_group} (migration V18,
 * {@link GroupCommit}); a batch is one statement through {@code admit_scheduled_batch} (V17). Each function checks the limits atomically with its inserts and
 * decides through the same {@code admission_outcome}, so a create gets the same answer alone or in a group; a group
 * does not wait for a lock another transaction holds, and leaves the creates that need it to run alone. The
 * tombstone look-ups that come together share one statement the same way. A create
 * that meets an ended or read-only pooled session runs once more on a new one ({@link SessionFaults#retriedOnce}), and
 * so does each create of a group that failed; a replay answers as the first create did.
 */
public final class PostgresMessageAdmission implements MessageAdmission {

    /**
     * Groups of creates admitted at once by default: one. The creates that wait while it runs make the next group, so
     * the group grows with the load, and each node's creates cost the database one statement and one commit per
     * group (docs/benchmarks.md, "Creates admitted in groups (V18)": two lanes made more groups of one and cost more).
     */
    public static final int DEFAULT_LANES = 1;
    /** Most creates admitted in one group: a batch's most events. */
    static final int MAX_GROUP = 100;
    /** Different {@link CreateLimits} that get groups of their own; creates under further limits run alone. */
    private static final int MAX_LIMITS = 8;

    private static final ScheduledMessageTable M = OwnerMessageRows.M;
    private static final int OWNER_LOCK = OwnerMessageRows.OWNER_LOCK;
    private static final int CHANNEL_LOCK = OwnerMessageRows.CHANNEL_LOCK;

    /**
     * A create in one statement and one round trip, on an autocommit connection (migration V17 says what it
     * checks, in the order of docs/openapi.yaml).
     */
    private static final String ADMIT = "SELECT outcome, existing_id, existing_event_id FROM admit_scheduled_message("
            + "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /**
     * Entries of one or more owners through {@code admit_scheduled_group} (migration V18), which takes the owners'
     * and then the channels' locks, decides every entry in order (each as if the earlier ones had been created before
     * it) and stores the admitted ones with one {@code INSERT} per table, in one statement whose text does not depend
     * on the number of entries.
     */
    private static final String ADMIT_GROUP = "SELECT a.outcome, a.existing_id, a.existing_event_id"
            + " FROM admit_scheduled_group(?, ?, ?::varchar[], ?::uuid[], ?::varchar[], ?::int[], ?::varchar[], ?::varchar[],"
            + " ?::text[], ?::bigint[], ?::bigint[], ?::varchar[], ?::bigint[], ?::bigint[], ?::uuid[], ?, ?, ?)"
            + " WITH ORDINALITY AS a(outcome, existing_id, existing_event_id, position) ORDER BY a.position";

    /**
     * One owner's batch through {@code admit_scheduled_batch} (migration V17): the same steps as
     * {@link #ADMIT_GROUP} with one owner, waiting for the owner's and the channels' locks.
     */
    private static final String ADMIT_BATCH = "SELECT a.outcome, a.existing_id, a.existing_event_id"
            + " FROM admit_scheduled_batch(?, ?, ?, ?::uuid[], ?::varchar[], ?::int[], ?::varchar[], ?::varchar[],"
            + " ?::text[], ?::bigint[], ?::bigint[], ?::varchar[], ?::bigint[], ?::bigint[], ?::uuid[], ?, ?, ?)"
            + " WITH ORDINALITY AS a(outcome, existing_id, existing_event_id, position) ORDER BY a.position";

    /** A group's answer for an entry whose owner's or channel's lock another transaction held: it runs alone. */
    private static final String BUSY = "busy";

    private static final String CHANNELS_DELETED =
            "SELECT channel FROM channel_tombstone WHERE channel = ANY (?::varchar[])";

    private final DataSource dataSource;
    private final DSLContext dsl;
    private final int lanes;
    private final ConcurrentHashMap<CreateLimits, GroupCommit<Pending, Admitted>> groupsByLimits =
            new ConcurrentHashMap<>();
    private final GroupCommit<Channel, Boolean> tombstoneReads;

    /** Admission over {@code dataSource} with {@link #DEFAULT_LANES} groups of creates at once. */
    public PostgresMessageAdmission(DataSource dataSource) {
        this(dataSource, DEFAULT_LANES);
    }

    /**
     * Admission over {@code dataSource} (a pool; each call borrows a connection and returns it).
     *
     * @param lanes groups of creates admitted at once, at least 1; each holds one of the pool's connections
     */
    public PostgresMessageAdmission(DataSource dataSource, int lanes) {
        if (lanes < 1) {
            throw new IllegalArgumentException("lanes must be at least 1, got " + lanes);
        }
        this.dataSource = dataSource;
        this.dsl = OwnerMessageRows.jooq(dataSource);
        this.lanes = lanes;
        this.tombstoneReads = new GroupCommit<>(lanes, MAX_GROUP, this::tombstonedAll);
    }

    @Override
    public CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits) {
        Pending pending = pending(message, key, limits);
        Supplier<Admitted> alone = () -> SessionFaults.retriedOnce(() -> admit(pending, limits));
        GroupCommit<Pending, Admitted> groups = groups(limits);
        Admitted admitted = groups == null ? alone.get() : groups.submit(pending, alone);
        if (admitted.outcome().equals(BUSY)) {
            admitted = alone.get(); // its owner's or channel's lock was held elsewhere: it waits for it alone
        }
        // After the connection went back: a replay reads the stored message on a connection of its own.
        return result(admitted, message, limits,
                id -> SessionFaults.retriedOnce(() -> OwnerMessageRows.find(dsl, id)));
    }

    /**
     * The creates of {@code limits} admitted in groups; null (each create alone) once {@link #MAX_LIMITS} different
     * limits have been seen, which only tests reach.
     */
    private GroupCommit<Pending, Admitted> groups(CreateLimits limits) {
        GroupCommit<Pending, Admitted> groups = groupsByLimits.get(limits);
        if (groups != null || groupsByLimits.size() >= MAX_LIMITS) {
            return groups;
        }
        return groupsByLimits.computeIfAbsent(limits,
                l -> new GroupCommit<>(lanes, MAX_GROUP, group -> admitTogether(group, l)));
    }

    /** A group of creates: one alone through {@code admit_scheduled_message}, more in one call of the group function. */
    private List<Admitted> admitTogether(List<Pending> group, CreateLimits limits) {
        if (group.size() == 1) {
            return List.of(SessionFaults.retriedOnce(() -> admit(group.get(0), limits)));
        }
        // Once more on a new session after an ended one, as a create alone: one connection, not one per create.
        return SessionFaults.retriedOnce(() -> {
            try (Connection connection = dataSource.getConnection()) {
                return admitGroup(connection, group, limits, null);
            } catch (SQLException e) {
                throw new IllegalStateException("admitting a group of " + group.size() + " creates failed: "
                        + e.getMessage(), e);
            }
        });
    }

    /**
     * Admits {@code entries}, of one owner or several, as one group, as {@link #create} admits creates that wait at
     * the same time; for tests, which cannot time concurrent creates to meet in one group.
     */
    List<CreateResult> createTogether(List<BatchEntry> entries, CreateLimits limits) {
        List<Pending> group = entries.stream().map(e -> pending(e.message(), e.key(), limits)).toList();
        List<Admitted> admitted = admitTogether(group, limits);
        List<CreateResult> results = new ArrayList<>(group.size());
        for (int i = 0; i < group.size(); i++) {
            Pending pending = group.get(i);
            Admitted answer = admitted.get(i).outcome().equals(BUSY)
                    ? SessionFaults.retriedOnce(() -> admit(pending, limits)) : admitted.get(i);
            results.add(result(answer, group.get(i).message(), limits,
                    id -> SessionFaults.retriedOnce(() -> OwnerMessageRows.find(dsl, id))));
        }
        return results;
    }

    /** A message to admit with its key, its channel window's start and its event's text. */
    private record Pending(ScheduledMessage message, IdempotencyKey key, Instant windowStart, String eventJson) {
    }

    private static Pending pending(ScheduledMessage message, IdempotencyKey key, CreateLimits limits) {
        if (!(message.state() instanceof ScheduleState.Scheduled) || message.attempts() != 0
                || message.state().fields().retryAt().isPresent()) {
            throw new IllegalArgumentException("a create stores a new scheduled message, got " + message.state());
        }
        return new Pending(message, key, limits.windowStart(message.dueAt()),
                EventText.write(message.event().orElseThrow(() -> new IllegalArgumentException(
                        "message " + message.id() + " has no event to store"))));
    }

    /** What {@code admit_scheduled_message} answered: the outcome and, for a replay or conflict, the stored message. */
    private record Admitted(String outcome, UUID existingId, String existingEventId) {
    }

    /** One call of {@code admit_scheduled_message} (migration V17) on a pooled connection. */
    private Admitted admit(Pending pending, CreateLimits limits) {
        ScheduledMessage message = pending.message();
        Instant windowStart = pending.windowStart();
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
            admit.setString(++i, pending.eventJson());
            admit.setObject(++i, utc(message.dueAt()));
            admit.setObject(++i, utc(message.createdAt()));
            admit.setString(++i, pending.key().key());
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
     * The whole batch in one transaction: one call of {@code admit_scheduled_batch} ({@link #ADMIT_BATCH}, migration
     * V17), then, if some entries are replays, one read of the messages they name. The function takes the owner's
     * lock and then the batch's channels' locks in the order of their lock keys (a create and a requeue take the
     * owner's and then one channel's, an edit or a channel deletion one channel's alone), so two batches, or a batch
     * and a create, an edit or a channel deletion, never wait on each other in a cycle. Each entry is decided by the
     * same rules as {@link #create}, as if the entries were created one after the other: its key is found among the
     * stored ones and the earlier entries', and its counts include the entries admitted before it. One difference:
     * the counts are taken once, at the start; a message of the owner delivered meanwhile stays in them, so an entry
     * at a limit may be refused a moment early, never admitted over it.
     */
    @Override
    public List<CreateResult> createBatch(List<BatchEntry> entries, CreateLimits limits) {
        if (entries.isEmpty()) {
            return List.of();
        }
        PublicKey owner = entries.get(0).message().owner();
        List<Pending> batch = new ArrayList<>(entries.size());
        for (BatchEntry entry : entries) {
            if (!entry.message().owner().equals(owner)) {
                throw new IllegalArgumentException("a batch belongs to one owner; " + entry.message().id() + " is "
                        + entry.message().owner() + "'s, not " + owner + "'s");
            }
            batch.add(pending(entry.message(), entry.key(), limits));
        }
        // A batch is as idempotent as a create: run again on a new session, its entries answer as replays.
        return SessionFaults.retriedOnce(() -> dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            List<Admitted> admitted = tx.connectionResult(connection -> admitGroup(connection, batch, limits, owner));
            // The messages replays name, read in the same transaction (an earlier entry of this batch included).
            List<UUID> replayed = admitted.stream().filter(a -> a.outcome().equals("replayed"))
                    .map(Admitted::existingId).distinct().toList();
            Map<ScheduleId, ScheduledMessage> stored = new HashMap<>();
            if (!replayed.isEmpty()) {
                tx.selectFrom(M).where(M.ID.in(replayed)).fetch()
                        .forEach(r -> stored.put(new ScheduleId(r.getId()), OwnerMessageRows.toMessage(r)));
            }
            List<CreateResult> results = new ArrayList<>(batch.size());
            for (int i = 0; i < batch.size(); i++) {
                results.add(result(admitted.get(i), batch.get(i).message(), limits,
                        id -> Optional.ofNullable(stored.get(id))));
            }
            return results;
        }));
    }

    /**
     * The entries' answers in their order, on {@code connection}: a group of creates through
     * {@code admit_scheduled_group} ({@link #ADMIT_GROUP}, migration V18; an entry whose lock is held elsewhere is
     * answered {@link #BUSY}), or one owner's batch through {@code admit_scheduled_batch} ({@link #ADMIT_BATCH}).
     *
     * @param batchOwner the batch's owner, or null for a group of creates
     */
    private static List<Admitted> admitGroup(Connection connection, List<Pending> entries, CreateLimits limits,
                                             PublicKey batchOwner) throws SQLException {
        int n = entries.size();
        String[] owners = new String[n];
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
            Pending entry = entries.get(i);
            ScheduledMessage message = entry.message();
            owners[i] = message.owner().hex();
            ids[i] = message.id().value();
            channels[i] = message.channel().value();
            revisions[i] = message.revision().number();
            states[i] = message.state().wireName();
            eventIds[i] = message.eventId().hex();
            events[i] = entry.eventJson();
            due[i] = micros(message.dueAt());
            created[i] = micros(message.createdAt());
            keys[i] = entry.key().key();
            windowStarts[i] = micros(entry.windowStart());
            windowEnds[i] = micros(entry.windowStart().plus(limits.channelWindow()));
            series[i] = message.series().map(SeriesId::value).orElse(null);
        }
        List<Admitted> admitted = new ArrayList<>(n);
        try (PreparedStatement admit = connection.prepareStatement(batchOwner == null ? ADMIT_GROUP : ADMIT_BATCH)) {
            int i = 0;
            admit.setInt(++i, OWNER_LOCK);
            admit.setInt(++i, CHANNEL_LOCK);
            if (batchOwner == null) {
                admit.setArray(++i, connection.createArrayOf("varchar", owners));
            } else {
                admit.setString(++i, batchOwner.hex());
            }
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
            admit.setInt(++i, limits.maxPendingPerOwner());
            admit.setInt(++i, limits.limit(WindowScope.OWNER));
            admit.setInt(++i, limits.limit(WindowScope.CHANNEL));
            try (ResultSet rows = admit.executeQuery()) {
                while (rows.next()) {
                    admitted.add(new Admitted(rows.getString(1), rows.getObject(2, UUID.class), rows.getString(3)));
                }
            }
        }
        if (admitted.size() != n) {
            throw new IllegalStateException((batchOwner == null ? "admit_scheduled_group" : "admit_scheduled_batch")
                    + " answered " + admitted.size() + " of " + n + " entries");
        }
        return admitted;
    }

    /** {@code instant} in whole microseconds since the epoch (PostgreSQL's resolution; finer parts dropped). */
    private static long micros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    @Override
    public boolean channelDeleted(Channel channel) {
        // Asked by every create before its access check: those asked together share one look-up.
        return tombstoneReads.submit(channel, () -> tombstonedAll(List.of(channel)).get(0));
    }

    /** A group's tombstone look-ups (one or more), in order, from one statement. */
    List<Boolean> tombstonedAll(List<Channel> channels) {
        Set<Channel> deleted = SessionFaults.retriedOnce(() -> tombstonedAmong(channels));
        return channels.stream().map(deleted::contains).toList();
    }

    @Override
    public Set<Channel> deletedChannels(Collection<Channel> channels) {
        if (channels.isEmpty()) {
            return Set.of();
        }
        return SessionFaults.retriedOnce(() -> tombstonedAmong(channels));
    }

    private Set<Channel> tombstonedAmong(Collection<Channel> channels) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement deleted = connection.prepareStatement(CHANNELS_DELETED)) {
            deleted.setArray(1, connection.createArrayOf("varchar",
                    channels.stream().map(Channel::value).distinct().toArray()));
            Set<Channel> found = new HashSet<>();
            try (ResultSet rows = deleted.executeQuery()) {
                while (rows.next()) {
                    found.add(new Channel(rows.getString(1)));
                }
            }
            return found;
        } catch (SQLException e) {
            throw new IllegalStateException("reading the tombstones of " + channels.size() + " channels failed: "
                    + e.getMessage(), e);
        }
    }
}

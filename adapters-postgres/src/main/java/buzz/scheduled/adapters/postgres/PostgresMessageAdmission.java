package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Tables.CHANNEL_TOMBSTONE;
import static org.jooq.impl.DSL.any;

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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/**
 * Admission's storage port ({@link MessageAdmission}) on PostgreSQL: a create in one statement through
 * {@code admit_scheduled_message}, a batch in one through {@code admit_scheduled_batch} (migration V17), both of which
 * check the limits atomically with the inserts and decide through the same {@code admission_outcome}, and the look-up
 * of channel tombstones. A create that meets an ended or read-only pooled session runs once more on a
 * new one ({@link SessionFaults#retriedOnce}); a replay answers as the first create did.
 */
public final class PostgresMessageAdmission implements MessageAdmission {

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
     * A batch's entries through {@code admit_scheduled_batch} (migration V17), which takes the owner's and the
     * channels' locks, decides every entry in the batch's order (each as if the earlier ones had been created before
     * it) and stores the admitted ones with one {@code INSERT} per table, in one statement whose text does not depend
     * on the batch's size.
     */
    private static final String ADMIT_BATCH = "SELECT a.outcome, a.existing_id, a.existing_event_id"
            + " FROM admit_scheduled_batch(?, ?, ?, ?::uuid[], ?::varchar[], ?::int[], ?::varchar[], ?::varchar[],"
            + " ?::text[], ?::bigint[], ?::bigint[], ?::varchar[], ?::bigint[], ?::bigint[], ?::uuid[], ?, ?, ?)"
            + " WITH ORDINALITY AS a(outcome, existing_id, existing_event_id, position) ORDER BY a.position";

    private static final String CHANNEL_DELETED = "SELECT 1 FROM channel_tombstone WHERE channel = ?";

    private final DataSource dataSource;
    private final DSLContext dsl;

    /** Admission over {@code dataSource} (a pool; each call borrows a connection and returns it). */
    public PostgresMessageAdmission(DataSource dataSource) {
        this.dataSource = dataSource;
        this.dsl = OwnerMessageRows.jooq(dataSource);
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
        return result(admitted, message, limits,
                id -> SessionFaults.retriedOnce(() -> OwnerMessageRows.find(dsl, id)));
    }

    /** What {@code admit_scheduled_message} answered: the outcome and, for a replay or conflict, the stored message. */
    private record Admitted(String outcome, UUID existingId, String existingEventId) {
    }

    /** One call of {@code admit_scheduled_message} (migration V17) on a pooled connection. */
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
                try (PreparedStatement admit = connection.prepareStatement(ADMIT_BATCH)) {
                    int i = 0;
                    admit.setInt(++i, OWNER_LOCK);
                    admit.setInt(++i, CHANNEL_LOCK);
                    admit.setString(++i, owner.hex());
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
                            admitted.add(new Admitted(rows.getString(1), rows.getObject(2, UUID.class),
                                    rows.getString(3)));
                        }
                    }
                }
            });
            if (admitted.size() != n) {
                throw new IllegalStateException("admit_scheduled_batch answered " + admitted.size() + " of " + n
                        + " batch entries");
            }
            // The messages replays name, read in the same transaction (an earlier entry of this batch included).
            List<UUID> replayed = admitted.stream().filter(a -> a.outcome().equals("replayed"))
                    .map(Admitted::existingId).distinct().toList();
            Map<ScheduleId, ScheduledMessage> stored = new HashMap<>();
            if (!replayed.isEmpty()) {
                tx.selectFrom(M).where(M.ID.in(replayed)).fetch()
                        .forEach(r -> stored.put(new ScheduleId(r.getId()), OwnerMessageRows.toMessage(r)));
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

}

package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.JobRequests;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.StateName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * Handled kind-5905 requests in PostgreSQL (table {@code job_request}, migration V12_1). A request is recorded with
 * {@code INSERT … ON CONFLICT DO NOTHING}, so of concurrent handlers (on any node) the first record stands and the
 * others read it. Finished requests are taken under a lease ({@code lease_until}, {@code FOR UPDATE SKIP LOCKED})
 * joined with their message's end state; rows older than {@link #KEEP} are deleted in batches by the first
 * {@link #takeFinished} after {@link #PRUNE_EVERY} (the messages they follow are pruned by then).
 */
public final class PostgresJobRequests implements JobRequests {
    /** How long a handled request is remembered. */
    public static final Duration KEEP = Duration.ofDays(8);
    static final Duration PRUNE_EVERY = Duration.ofMinutes(10);
    static final int PRUNE_BATCH = 1_000;

    private static final String COLUMNS = "request_id, requester, encrypted, status, message_id";
    private static final String FIND = "SELECT " + COLUMNS + " FROM job_request WHERE request_id = ?";
    private static final String RECORD = """
            INSERT INTO job_request (request_id, requester, encrypted, status, message_id) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (request_id) DO NOTHING""";
    private static final String TAKE_FINISHED = """
            UPDATE job_request r
               SET lease_until = now() + ? * interval '1 microsecond'
              FROM scheduled_message m
             WHERE r.request_id = ANY(ARRAY(
                       SELECT j.request_id FROM job_request j JOIN scheduled_message s ON s.id = j.message_id
                        WHERE j.status = 'admitted' AND j.answered_at IS NULL AND s.finished_at IS NOT NULL
                          AND (j.lease_until IS NULL OR j.lease_until < now())
                        LIMIT ?
                        FOR UPDATE OF j SKIP LOCKED))
               AND m.id = r.message_id
            RETURNING r.request_id, r.requester, r.encrypted, r.status, r.message_id, m.state, m.reason, m.event_id,
                      m.last_error""";
    private static final String ANSWERED = """
            UPDATE job_request SET answered_at = now(), lease_until = NULL WHERE request_id = ?""";
    private static final String PRUNE = """
            DELETE FROM job_request WHERE request_id = ANY(ARRAY(
                SELECT request_id FROM job_request WHERE received_at < now() - ? * interval '1 microsecond'
                 LIMIT %d))""".formatted(PRUNE_BATCH);

    private final DataSource dataSource;
    private final LongSupplier nanoTime;
    private final AtomicLong nextPruneNanos;

    public PostgresJobRequests(DataSource dataSource) {
        this(dataSource, System::nanoTime);
    }

    PostgresJobRequests(DataSource dataSource, LongSupplier nanoTime) {
        if (dataSource == null || nanoTime == null) {
            throw new IllegalArgumentException("the job request store needs a data source and a ticker");
        }
        this.dataSource = dataSource;
        this.nanoTime = nanoTime;
        this.nextPruneNanos = new AtomicLong(nanoTime.getAsLong());
    }

    @Override
    public Optional<Handled> find(EventId requestId) {
        try (Connection connection = dataSource.getConnection()) {
            return find(connection, requestId);
        } catch (SQLException e) {
            throw failed("reading job request " + requestId, e);
        }
    }

    private static Optional<Handled> find(Connection connection, EventId requestId) throws SQLException {
        try (PreparedStatement find = connection.prepareStatement(FIND)) {
            find.setString(1, requestId.hex());
            try (ResultSet row = find.executeQuery()) {
                return row.next() ? Optional.of(handled(row)) : Optional.empty();
            }
        }
    }

    @Override
    public Handled record(Handled handled) {
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement insert = connection.prepareStatement(RECORD)) {
                insert.setString(1, handled.requestId().hex());
                insert.setString(2, handled.requester().hex());
                insert.setBoolean(3, handled.encrypted());
                insert.setString(4, handled.status().name().toLowerCase(Locale.ROOT));
                insert.setObject(5, handled.message().map(ScheduleId::value).orElse(null));
                if (insert.executeUpdate() == 1) {
                    return handled;
                }
            }
            return find(connection, handled.requestId()).orElseThrow(() -> new IllegalStateException(
                    "job request " + handled.requestId() + " was neither recorded nor found"));
        } catch (SQLException e) {
            throw failed("recording job request " + handled.requestId(), e);
        }
    }

    @Override
    public List<Finished> takeFinished(int max, Duration lease) {
        List<Finished> finished = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement take = connection.prepareStatement(TAKE_FINISHED)) {
                take.setLong(1, lease.toNanos() / 1_000);
                take.setInt(2, max);
                try (ResultSet row = take.executeQuery()) {
                    while (row.next()) {
                        finished.add(finished(row));
                    }
                }
            }
            if (pruneDue()) {
                try (PreparedStatement prune = connection.prepareStatement(PRUNE)) {
                    prune.setLong(1, KEEP.toNanos() / 1_000);
                    prune.executeUpdate();
                }
            }
        } catch (SQLException e) {
            throw failed("taking finished job requests", e);
        }
        return finished;
    }

    private static Finished finished(ResultSet row) throws SQLException {
        Handled request = handled(row);
        StateName state = StateName.fromWireName(row.getString(6));
        String reason = row.getString(7);
        return new Finished(request,
                state == StateName.PUBLISHED ? Optional.of(new EventId(row.getString(8))) : Optional.empty(),
                reason == null ? Optional.empty() : Optional.of(FailureReason.fromWireName(reason)),
                Optional.ofNullable(row.getString(9)), state == StateName.CANCELLED);
    }

    @Override
    public void answered(EventId requestId) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement answered = connection.prepareStatement(ANSWERED)) {
            answered.setString(1, requestId.hex());
            answered.executeUpdate();
        } catch (SQLException e) {
            throw failed("marking job request " + requestId + " answered", e);
        }
    }

    private static Handled handled(ResultSet row) throws SQLException {
        UUID message = row.getObject(5, UUID.class);
        return new Handled(new EventId(row.getString(1)), new PublicKey(row.getString(2)), row.getBoolean(3),
                Status.valueOf(row.getString(4).toUpperCase(Locale.ROOT)),
                Optional.ofNullable(message).map(ScheduleId::new));
    }

    private boolean pruneDue() {
        long now = nanoTime.getAsLong();
        long due = nextPruneNanos.get();
        return now - due >= 0 && nextPruneNanos.compareAndSet(due, now + PRUNE_EVERY.toNanos());
    }

    private static IllegalStateException failed(String what, SQLException e) {
        return new IllegalStateException(what + " failed: " + e.getMessage(), e);
    }
}

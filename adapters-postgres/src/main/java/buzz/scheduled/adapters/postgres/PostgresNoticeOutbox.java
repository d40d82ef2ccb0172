package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.NoticeOutbox;
import buzz.scheduled.domain.notice.MessageOutcome;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * The notice outbox in PostgreSQL (tables {@code notice_outbox}, {@code notice_sent}, {@code notice_switch}; migration
 * V12). Rows are written by the database's own trigger in the transaction that makes the outcome; here they are taken
 * under a lease ({@code not_before} moved ahead, {@code FOR UPDATE SKIP LOCKED}, so nodes never take the same row at
 * once), marked sent, or put back. Every time decision is {@code now()}. Old rows are deleted in batches of at most
 * {@link #PRUNE_BATCH} by the first {@link #take} after {@link #PRUNE_EVERY}: sent rows a day after they were sent,
 * rows never sent {@link #GIVE_UP_AFTER} after they were queued, and the per-owner counts after a day.
 */
public final class PostgresNoticeOutbox implements NoticeOutbox {
    /** How often this node prunes (at most). */
    static final Duration PRUNE_EVERY = Duration.ofMinutes(10);
    /** Most rows one prune deletes from each table. */
    static final int PRUNE_BATCH = 1_000;
    /** A notice no relay took for this long is dropped (the message itself is pruned by then too). */
    public static final Duration GIVE_UP_AFTER = Duration.ofDays(7);
    /** Longest error kept on a row, in characters. */
    static final int ERROR_LENGTH = 500;

    private static final String SWITCH = """
            INSERT INTO notice_switch (singleton, enabled) VALUES (true, ?)
            ON CONFLICT (singleton) DO UPDATE SET enabled = EXCLUDED.enabled""";
    private static final String TAKE = """
            UPDATE notice_outbox o
               SET not_before = now() + ? * interval '1 microsecond', attempts = o.attempts + 1
             WHERE o.id = ANY(ARRAY(
                       SELECT c.id FROM notice_outbox c
                        WHERE c.sent_at IS NULL AND c.not_before <= now()
                        ORDER BY c.not_before, c.id
                        LIMIT ?
                        FOR UPDATE SKIP LOCKED))
            RETURNING o.id, o.owner, o.message_id, o.outcome, o.reason, o.channel, o.event_id, o.due_at,
                      o.relay_message, o.finished_at, o.attempts - 1""";
    private static final String SENT_WITHIN = """
            SELECT count(*) FROM notice_sent WHERE owner = ? AND sent_at > now() - ? * interval '1 microsecond'""";
    private static final String MARK_SENT = """
            UPDATE notice_outbox SET sent_at = now(), last_error = NULL
             WHERE id = ANY(?) AND owner = ? AND sent_at IS NULL""";
    private static final String COUNT_SENT = "INSERT INTO notice_sent (owner, wrap_id) VALUES (?, ?)";
    private static final String RETRY = """
            UPDATE notice_outbox SET not_before = now() + ? * interval '1 microsecond', last_error = ?
             WHERE id = ANY(?) AND sent_at IS NULL""";
    private static final String PRUNE_OUTBOX = """
            DELETE FROM notice_outbox WHERE id = ANY(ARRAY(
                SELECT id FROM notice_outbox
                 WHERE created_at < now() - ? * interval '1 microsecond'
                    OR sent_at < now() - interval '1 day'
                 LIMIT %d))""".formatted(PRUNE_BATCH);
    private static final String PRUNE_SENT = """
            DELETE FROM notice_sent WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM notice_sent WHERE sent_at < now() - interval '1 day' LIMIT %d))""".formatted(
            PRUNE_BATCH);

    private final DataSource dataSource;
    private final LongSupplier nanoTime;
    private final AtomicLong nextPruneNanos;

    public PostgresNoticeOutbox(DataSource dataSource) {
        this(dataSource, System::nanoTime);
    }

    PostgresNoticeOutbox(DataSource dataSource, LongSupplier nanoTime) {
        if (dataSource == null || nanoTime == null) {
            throw new IllegalArgumentException("the notice outbox needs a data source and a ticker");
        }
        this.dataSource = dataSource;
        this.nanoTime = nanoTime;
        this.nextPruneNanos = new AtomicLong(nanoTime.getAsLong());
    }

    @Override
    public void switchTo(boolean on) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement(SWITCH)) {
            update.setBoolean(1, on);
            update.executeUpdate();
        } catch (SQLException e) {
            throw failed("switching notices " + (on ? "on" : "off"), e);
        }
    }

    @Override
    public List<Queued> take(int max, Duration lease) {
        if (max < 1) {
            throw new IllegalArgumentException("take at least one queued notice, not " + max);
        }
        List<Queued> taken = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement take = connection.prepareStatement(TAKE)) {
                take.setLong(1, micros(lease));
                take.setInt(2, max);
                try (ResultSet row = take.executeQuery()) {
                    while (row.next()) {
                        taken.add(queued(row));
                    }
                }
            }
            if (pruneDue()) {
                try (PreparedStatement outbox = connection.prepareStatement(PRUNE_OUTBOX);
                     PreparedStatement sent = connection.prepareStatement(PRUNE_SENT)) {
                    outbox.setLong(1, micros(GIVE_UP_AFTER));
                    outbox.executeUpdate();
                    sent.executeUpdate();
                }
            }
        } catch (SQLException e) {
            throw failed("taking queued notices", e);
        }
        taken.sort(Comparator.comparingLong(Queued::id));
        return taken;
    }

    private static Queued queued(ResultSet row) throws SQLException {
        String reason = row.getString(5);
        MessageOutcome.Result result = reason == null ? new MessageOutcome.Result.Published()
                : new MessageOutcome.Result.Failed(FailureReason.fromWireName(reason),
                Optional.ofNullable(row.getString(9)));
        MessageOutcome outcome = new MessageOutcome(new PublicKey(row.getString(2)),
                new ScheduleId(row.getObject(3, java.util.UUID.class)), new Channel(row.getString(6)),
                new EventId(row.getString(7)), row.getTimestamp(8).toInstant(), row.getTimestamp(10).toInstant(),
                result);
        return new Queued(row.getLong(1), outcome, row.getInt(11));
    }

    @Override
    public int sentWithin(PublicKey owner, Duration window) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement count = connection.prepareStatement(SENT_WITHIN)) {
            count.setString(1, owner.hex());
            count.setLong(2, micros(window));
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        } catch (SQLException e) {
            throw failed("counting the notices sent to " + owner, e);
        }
    }

    @Override
    public void sent(PublicKey owner, List<Long> ids, EventId wrapId) {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement mark = connection.prepareStatement(MARK_SENT);
                 PreparedStatement count = connection.prepareStatement(COUNT_SENT)) {
                mark.setArray(1, ids(connection, ids));
                mark.setString(2, owner.hex());
                mark.executeUpdate();
                count.setString(1, owner.hex());
                count.setString(2, wrapId.hex());
                count.executeUpdate();
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw failed("marking notices sent", e);
        }
    }

    @Override
    public void retryLater(List<Long> ids, Duration delay, String why) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement retry = connection.prepareStatement(RETRY)) {
            retry.setLong(1, micros(delay));
            retry.setString(2, why.length() <= ERROR_LENGTH ? why : why.substring(0, ERROR_LENGTH));
            retry.setArray(3, ids(connection, ids));
            retry.executeUpdate();
        } catch (SQLException e) {
            throw failed("putting notices back", e);
        }
    }

    private static Array ids(Connection connection, List<Long> ids) throws SQLException {
        return connection.createArrayOf("bigint", ids.toArray());
    }

    private static long micros(Duration duration) {
        return duration.toNanos() / 1_000;
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

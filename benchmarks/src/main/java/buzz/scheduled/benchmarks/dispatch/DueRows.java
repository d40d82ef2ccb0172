package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import buzz.scheduled.domain.schedule.Admission;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/** Due messages written straight into the sidecar's tables, as admission would have left them. */
final class DueRows {
    private static final int INSERT_BATCH = 1_000;

    private DueRows() {
    }

    /**
     * Writes valid rows as an admission would have left them (revision 1, {@code scheduled}, the event's wire JSON,
     * its revision row and its default idempotency key, the event id), in transactions of {@value #INSERT_BATCH}.
     * Admission itself refuses due times in the past, which is why the rows are written directly; every row is first
     * built as a {@link ScheduledMessage} so the domain's rules still check it.
     */
    static void insert(DataSource pool, List<DueEvent> events) {
        // created_at and updated_at take their default, the database's now().
        String message = "INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json,"
                + " due_at, attempts) VALUES (?, ?, ?, 1, 'scheduled', ?, ?, ?, 0)";
        String revision = "INSERT INTO scheduled_message_revision (message_id, revision, event_id, event_json)"
                + " VALUES (?, 1, ?, ?)";
        String key = "INSERT INTO idempotency_key (owner, key, message_id, event_id) VALUES (?, ?, ?, ?)";
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement messages = connection.prepareStatement(message);
                 PreparedStatement revisions = connection.prepareStatement(revision);
                 PreparedStatement keys = connection.prepareStatement(key)) {
                for (int from = 0; from < events.size(); from += INSERT_BATCH) {
                    for (DueEvent due : events.subList(from, Math.min(events.size(), from + INSERT_BATCH))) {
                        Instant dueAt = Instant.ofEpochSecond(due.dueSecond());
                        ScheduledMessage row = ScheduledMessage.admit(new ScheduleId(UUID.randomUUID()),
                                new Admission(due.event(), new Channel(due.channel()), dueAt), dueAt);
                        UUID id = row.id().value();
                        messages.setObject(1, id);
                        messages.setString(2, row.owner().hex());
                        messages.setString(3, row.channel().value());
                        messages.setString(4, row.eventId().hex());
                        messages.setString(5, due.json());
                        messages.setTimestamp(6, Timestamp.from(row.dueAt()));
                        messages.addBatch();
                        revisions.setObject(1, id);
                        revisions.setString(2, row.eventId().hex());
                        revisions.setString(3, due.json());
                        revisions.addBatch();
                        keys.setString(1, row.owner().hex());
                        keys.setString(2, row.eventId().hex());
                        keys.setObject(3, id);
                        keys.setString(4, row.eventId().hex());
                        keys.addBatch();
                    }
                    messages.executeBatch();
                    revisions.executeBatch();
                    keys.executeBatch();
                    connection.commit();
                }
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("ANALYZE scheduled_message");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("inserting " + events.size() + " due messages failed: " + e.getMessage(), e);
        }
    }

}

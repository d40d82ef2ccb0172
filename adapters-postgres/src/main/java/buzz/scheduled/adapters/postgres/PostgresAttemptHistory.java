package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.AttemptHistory;
import buzz.scheduled.domain.schedule.AttemptOutcome;
import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A message's delivery attempts on PostgreSQL: the rows the finishing write added to {@code delivery_attempt}
 * (migration V13), then, for a published message, its publication read from the message's own row.
 */
public final class PostgresAttemptHistory implements AttemptHistory {

    static final String ATTEMPTS = """
            SELECT attempt, revision, recorded_at, outcome, reason, relay_message
              FROM (SELECT id AS ord, attempt, revision, recorded_at, outcome, reason, relay_message
                      FROM delivery_attempt
                     WHERE message_id = ?
                    UNION ALL
                    SELECT NULL, greatest(attempts, 1), revision, finished_at, 'published', NULL, NULL
                      FROM scheduled_message
                     WHERE id = ? AND state = %s) a
             ORDER BY ord NULLS LAST""".formatted(StateLiterals.PUBLISHED);

    private final DataSource dataSource;

    /** Over {@code dataSource} (a pool; each call borrows one connection for one statement). */
    public PostgresAttemptHistory(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("the attempt history needs a data source");
        }
        this.dataSource = dataSource;
    }

    @Override
    public List<DeliveryAttempt> attempts(ScheduleId id) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(ATTEMPTS)) {
            statement.setObject(1, id.value());
            statement.setObject(2, id.value());
            List<DeliveryAttempt> attempts = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    attempts.add(new DeliveryAttempt(rows.getInt(1), new Revision(rows.getInt(2)),
                            rows.getObject(3, OffsetDateTime.class).toInstant(),
                            outcome(rows.getString(4), rows.getString(5)),
                            Optional.ofNullable(rows.getString(6))));
                }
            }
            return attempts;
        } catch (SQLException e) {
            throw new IllegalStateException("reading the attempts of " + id + " failed: " + e.getMessage()
                    + " (SQLState " + e.getSQLState() + ")", e);
        }
    }

    private static AttemptOutcome outcome(String outcome, String reason) {
        return switch (outcome) {
            case "published" -> new AttemptOutcome.Published();
            case "retry" -> new AttemptOutcome.Retry();
            case "failed" -> new AttemptOutcome.Failed(FailureReason.fromWireName(reason));
            default -> throw new IllegalStateException("delivery_attempt holds an unknown outcome: " + outcome);
        };
    }
}

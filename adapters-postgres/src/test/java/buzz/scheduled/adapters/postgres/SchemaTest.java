package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.testing.Poll;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The migrations' constraints and the due-work NOTIFY trigger, checked with plain SQL. */
class SchemaTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final String OWNER = "a".repeat(64);
    private static final String EVENT = "b".repeat(64);

    @BeforeEach
    void empty() {
        db.truncateAllTables();
    }

    @Test
    void insert_wellFormedScheduledRow_isAccepted() {
        db.execute(insert(UUID.randomUUID(), "'scheduled'", "NULL", "NULL", "NULL", "'{}'"));

        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE state = 'scheduled'")).isEqualTo(1);
    }

    @Test
    void insert_unknownState_isRejectedByTheStateCheck() {
        assertThatThrownBy(() -> db.execute(insert(UUID.randomUUID(), "'queued'", "NULL", "NULL", "NULL", "'{}'")))
                .hasMessageContaining("scheduled_message_state_known");
    }

    @Test
    void insert_reasonOnNonFailedRow_isRejected() {
        assertThatThrownBy(() -> db.execute(insert(UUID.randomUUID(), "'scheduled'", "'expired'", "NULL", "NULL", "'{}'")))
                .hasMessageContaining("scheduled_message_reason_iff_failed");
    }

    @Test
    void insert_claimedRowWithoutToken_isRejected() {
        assertThatThrownBy(() -> db.execute(insert(UUID.randomUUID(), "'claimed'", "NULL", "NULL", "now()", "'{}'")))
                .hasMessageContaining("scheduled_message_claim_iff_in_flight");
    }

    @Test
    void insert_pendingRowWithoutEvent_isRejected() {
        assertThatThrownBy(() -> db.execute(insert(UUID.randomUUID(), "'scheduled'", "NULL", "NULL", "NULL", "NULL")))
                .hasMessageContaining("scheduled_message_pending_has_event");
    }

    @Test
    void insert_uppercaseOwner_isRejected() {
        String sql = insert(UUID.randomUUID(), "'scheduled'", "NULL", "NULL", "NULL", "'{}'")
                .replace(OWNER, OWNER.toUpperCase());

        assertThatThrownBy(() -> db.execute(sql)).hasMessageContaining("scheduled_message_owner_hex");
    }

    @Test
    void idempotencyKey_sameOwnerAndKeyTwice_isRejected() {
        UUID id = UUID.randomUUID();
        db.execute(insert(id, "'scheduled'", "NULL", "NULL", "NULL", "'{}'"));
        String key = "INSERT INTO idempotency_key (owner, key, message_id, event_id) VALUES ('" + OWNER + "', 'k1', '"
                + id + "', '" + EVENT + "')";
        db.execute(key);

        assertThatThrownBy(() -> db.execute(key)).hasMessageContaining("idempotency_key_pk");
    }

    @Test
    void notify_insertOfScheduledRows_isHeardWithEachRowsDueTime() throws SQLException {
        try (Connection listener = listen()) {
            db.execute(insertDueAt(UUID.randomUUID(), "1700000100") + ", " + valuesDueAt(UUID.randomUUID(), "1700000050"));

            List<PGNotification> heard = awaitNotifications(listener, 2);

            assertThat(heard).extracting(PGNotification::getParameter)
                    .containsExactlyInAnyOrder("1700000100000", "1700000050000");
        }
    }

    @Test
    void notify_deliveryWritesThatMakeNoWorkNearer_stayQuiet() throws SQLException {
        UUID id = UUID.randomUUID();
        db.execute(insertDueAt(id, "1700000100"));
        try (Connection listener = listen()) {
            db.execute("UPDATE scheduled_message SET state = 'claimed', fencing_token = nextval('fencing_token_seq'),"
                    + " lease_until = now() WHERE id = '" + id + "'");
            db.execute("UPDATE scheduled_message SET state = 'sending' WHERE id = '" + id + "'");
            db.execute("UPDATE scheduled_message SET retry_at = to_timestamp(1700000300) , state = 'scheduled',"
                    + " fencing_token = NULL, lease_until = NULL WHERE id = '" + id + "'");

            // Notifications arrive in commit order: had the claim or the send made one, it would come first.
            assertThat(awaitNotifications(listener, 1)).extracting(PGNotification::getParameter)
                    .containsExactly("1700000300000");
        }
    }

    @Test
    void notify_updateThatLeavesDueTimeAlone_staysQuietButRescheduleIsHeard() throws SQLException {
        UUID id = UUID.randomUUID();
        db.execute(insertDueAt(id, "1700000100"));
        try (Connection listener = listen()) {
            db.execute("UPDATE scheduled_message SET attempts = attempts + 1 WHERE id = '" + id + "'");
            db.execute("UPDATE scheduled_message SET retry_at = to_timestamp(1700000200.5) WHERE id = '" + id + "'");

            List<PGNotification> heard = awaitNotifications(listener, 1);

            // Notifications arrive in commit order, so a notification from the first update would come first.
            assertThat(heard).extracting(PGNotification::getParameter).containsExactly("1700000200500");
        }
    }

    @Test
    void notify_rowReturnedFromClaimedToScheduled_isHeard() throws SQLException {
        UUID id = UUID.randomUUID();
        db.execute(insertDueAt(id, "1700000100"));
        db.execute("UPDATE scheduled_message SET state = 'claimed', fencing_token = nextval('fencing_token_seq'),"
                + " lease_until = now() WHERE id = '" + id + "'");
        try (Connection listener = listen()) {
            db.execute("UPDATE scheduled_message SET state = 'scheduled', fencing_token = NULL, lease_until = NULL"
                    + " WHERE id = '" + id + "'");

            assertThat(awaitNotifications(listener, 1)).extracting(PGNotification::getParameter)
                    .containsExactly("1700000100000");
        }
    }

    private static String insert(UUID id, String state, String reason, String token, String lease, String event) {
        return "INSERT INTO scheduled_message (id, owner, channel, revision, state, reason, event_id, event_json,"
                + " due_at, fencing_token, lease_until) VALUES ('" + id + "', '" + OWNER + "', 'general', 1, " + state
                + ", " + reason + ", '" + EVENT + "', " + event + ", now() + interval '1 hour', " + token + ", "
                + lease + ")";
    }

    private static String insertDueAt(UUID id, String epochSeconds) {
        return "INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at)"
                + " VALUES " + valuesDueAt(id, epochSeconds);
    }

    private static String valuesDueAt(UUID id, String epochSeconds) {
        return "('" + id + "', '" + OWNER + "', 'general', 1, 'scheduled', '" + EVENT + "', '{}', to_timestamp("
                + epochSeconds + "))";
    }

    private static Connection listen() throws SQLException {
        Connection listener = DriverManager.getConnection(db.jdbcUrl());
        try (Statement s = listener.createStatement()) {
            s.execute("LISTEN buzz_scheduled_due");
        }
        return listener;
    }

    private static List<PGNotification> awaitNotifications(Connection listener, int expected) {
        List<PGNotification> heard = new ArrayList<>();
        Poll.until(expected + " notifications on buzz_scheduled_due", Duration.ofSeconds(5), () -> {
            PGNotification[] batch = listener.unwrap(PGConnection.class).getNotifications(250);
            if (batch != null) {
                heard.addAll(List.of(batch));
            }
            return heard.size();
        }, count -> count >= expected);
        return heard;
    }
}

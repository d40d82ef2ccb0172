package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.DeliveryStore.FinishResult;
import buzz.scheduled.application.port.out.DeliveryStore.Written;
import buzz.scheduled.application.port.out.DeliveryStoreContract;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The delivery store's contract against PostgreSQL, and what only PostgreSQL can show: the claim is a HOT update,
 * a grouped write isolates the one row whose write fails, an unreachable database fails the whole call, and the
 * finishing write never deadlocks with a channel deletion.
 */
class PostgresDeliveryStoreTest extends DeliveryStoreContract<PostgresOwnerMessages> {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected PostgresOwnerMessages emptyStore() {
        db.truncateAllTables();
        db.execute("DROP TRIGGER IF EXISTS refuse_one_publish ON scheduled_message");
        return new PostgresOwnerMessages(db.dataSource());
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new PostgresDeliveryStore(db.dataSource());
    }

    @Override
    protected void deleteChannel(Channel channel) {
        db.execute("INSERT INTO channel_tombstone (channel) VALUES (?)", channel.value());
    }

    @Override
    protected void letTimePass(Duration duration) {
        db.letTimePass(duration);
    }

    @Test
    void claim_ofTwoHundredDueRows_isEveryRowAHotUpdate() throws SQLException {
        createDue(200);
        long[] counts;
        // A connection of its own: the transaction statistics of a pooled session may still hold earlier,
        // unflushed transactions' counts.
        java.util.Properties login = new java.util.Properties();
        login.setProperty("user", db.user());
        db.password().ifPresent(password -> login.setProperty("password", password));
        try (Connection connection = java.sql.DriverManager.getConnection(db.jdbcUrl(), login)) {
            connection.setAutoCommit(false);
            try (PreparedStatement claim = connection.prepareStatement(PostgresDeliveryStore.CLAIM)) {
                claim.setLong(1, DatabaseClock.micros(LEASE));
                claim.setInt(2, 500);
                int rows = 0;
                try (ResultSet claimed = claim.executeQuery()) {
                    while (claimed.next()) {
                        rows++;
                    }
                }
                assertThat(rows).isEqualTo(200);
            }
            // The statistics of this transaction so far: every update, and how many of them were heap-only.
            try (PreparedStatement stats = connection.prepareStatement("SELECT n_tup_upd, n_tup_hot_upd"
                    + " FROM pg_stat_xact_user_tables WHERE relname = 'scheduled_message'");
                 ResultSet row = stats.executeQuery()) {
                row.next();
                counts = new long[] {row.getLong(1), row.getLong(2)};
            }
            connection.commit();
        }

        assertThat(counts[0]).isEqualTo(200);
        assertThat(counts[1]).as("HOT updates among the claim's 200").isEqualTo(200);
    }

    @Test
    void finish_oneRowsWriteFailsInAGroupedWrite_theOthersAreWrittenAtOnceAndItAloneIsTriedAgain() {
        createDue(10);
        List<ClaimedMessage> claimed = new ArrayList<>(delivery.claim(10, LEASE).messages());
        claimed.sort(Comparator.comparing(m -> m.claim().id().value().toString()));
        ScheduleId refused = claimed.get(6).claim().id();
        db.execute("CREATE OR REPLACE FUNCTION refuse_one_publish() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN IF NEW.id = '" + refused.value() + "' AND NEW.state = 'published' THEN"
                + " RAISE EXCEPTION 'refused by the test trigger'; END IF; RETURN NEW; END $$");
        db.execute("CREATE TRIGGER refuse_one_publish BEFORE UPDATE ON scheduled_message FOR EACH ROW"
                + " EXECUTE FUNCTION refuse_one_publish()");
        List<Finish> publish = claimed.stream()
                .<Finish>map(m -> new Finish.Publish(m.claim(), m.revision())).toList();

        List<FinishResult> results = delivery.finish(publish);

        for (int i = 0; i < claimed.size(); i++) {
            assertThat(results.get(i).written()).as("outcome %d", i)
                    .isEqualTo(i == 6 ? Written.FAILED_TO_WRITE : Written.PUBLISHED);
        }
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE state = 'published'")).isEqualTo(9);
        assertThat(store.find(refused).orElseThrow().state().wireName()).isEqualTo("sending");
        db.execute("DROP TRIGGER refuse_one_publish ON scheduled_message");
        assertThat(delivery.finish(List.of(publish.get(6))).get(0).written()).isEqualTo(Written.PUBLISHED);
    }

    @Test
    void finish_databaseUnreachable_failsTheWholeCallSoTheCallerTriesItAgain() {
        createDue(1);
        ClaimedMessage claimed = delivery.claim(1, LEASE).messages().get(0);
        DeliveryStore unreachable = new PostgresDeliveryStore(new UnreachableDataSource());

        assertThatThrownBy(() -> unreachable.finish(List.of(new Finish.Publish(claimed.claim(), claimed.revision()))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("recording 1 delivery outcomes failed")
                .hasMessageContaining("connection refused by the test");
        assertThat(store.find(claimed.claim().id()).orElseThrow().state().wireName()).isEqualTo("sending");
    }

    @Test
    void finish_failedChannelDeleted_purgesTheEventOfEveryRevision_whileARelayRefusalKeepsItForARequeue() {
        createDue(2);
        List<ClaimedMessage> claimed = delivery.claim(2, LEASE).messages();

        delivery.finish(List.of(
                new Finish.Fail(claimed.get(0).claim(), claimed.get(0).revision(), FailureReason.CHANNEL_DELETED,
                        "channel deleted"),
                new Finish.Fail(claimed.get(1).claim(), claimed.get(1).revision(), FailureReason.RELAY_REJECTED,
                        "invalid: bad")));

        UUID purged = claimed.get(0).claim().id().value();
        UUID kept = claimed.get(1).claim().id().value();
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message_revision WHERE message_id = ?"
                + " AND event_json IS NOT NULL", purged)).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message_revision WHERE message_id = ?",
                purged)).isEqualTo(1);
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE id = ? AND event_json IS NULL",
                purged)).isEqualTo(1);
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE id = ? AND event_json IS NOT NULL",
                kept)).isEqualTo(1);
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message_revision WHERE message_id = ?"
                + " AND event_json IS NOT NULL", kept)).isEqualTo(1);
    }

    @Test
    void finish_retryAndFailure_keepTheRelaysWordsAsLastErrorForTheOperator_andAPublishKeepsThem() {
        createDue(2);
        List<ClaimedMessage> claimed = new ArrayList<>(delivery.claim(2, LEASE).messages());
        ClaimedMessage retried = claimed.get(0);
        ClaimedMessage failed = claimed.get(1);

        delivery.finish(List.of(
                new Finish.Retry(retried.claim(), retried.revision(), Duration.ZERO, Duration.ofHours(1),
                        "rate-limited: slow down"),
                new Finish.Fail(failed.claim(), failed.revision(), FailureReason.RELAY_REJECTED,
                        "blocked: " + "x".repeat(600))));
        ClaimedMessage again = delivery.claim(1, LEASE).messages().get(0);
        delivery.finish(List.of(new Finish.Publish(again.claim(), again.revision())));

        assertThat(db.queryColumn("SELECT last_error FROM scheduled_message WHERE id = ?", retried.claim().id().value()))
                .containsExactly("rate-limited: slow down");
        assertThat(db.queryColumn("SELECT last_error FROM scheduled_message WHERE id = ?", failed.claim().id().value())
                .get(0)).startsWith("blocked: xxx").hasSize(PostgresDeliveryStore.LAST_ERROR_LENGTH);
        assertThat(store.find(retried.claim().id()).orElseThrow().state().wireName()).isEqualTo("published");
    }

    @Test
    void finish_relayWordsWithNulOrASurrogatePairAtTheCut_keepReadableTextAsLastError() {
        createDue(2);
        List<ClaimedMessage> claimed = new ArrayList<>(delivery.claim(2, LEASE).messages());
        String emojiAtTheCut = "x".repeat(PostgresDeliveryStore.LAST_ERROR_LENGTH - 1) + "\uD83D\uDE00 tail";

        delivery.finish(List.of(
                new Finish.Retry(claimed.get(0).claim(), claimed.get(0).revision(), Duration.ZERO,
                        Duration.ofHours(1), "error: a\u0000b"),
                new Finish.Retry(claimed.get(1).claim(), claimed.get(1).revision(), Duration.ZERO,
                        Duration.ofHours(1), emojiAtTheCut)));

        assertThat(db.queryColumn("SELECT last_error FROM scheduled_message WHERE id = ?",
                claimed.get(0).claim().id().value())).containsExactly("error: a\uFFFDb");
        assertThat(db.queryColumn("SELECT last_error FROM scheduled_message WHERE id = ?",
                claimed.get(1).claim().id().value())).containsExactly(
                "x".repeat(PostgresDeliveryStore.LAST_ERROR_LENGTH - 1));
    }

    @Test
    void finish_waitingOnARowWhileTheChannelIsDeleted_bothFinishWithoutADeadlock() throws Exception {
        createDue(3);
        ScheduledMessage pending = createdMessage(dueIn(Duration.ofHours(1)));
        List<ClaimedMessage> claimed = delivery.claim(3, LEASE).messages();
        PostgresChannelAdministration administration = new PostgresChannelAdministration(db.dataSource());
        ExecutorService sessions = Executors.newFixedThreadPool(2);
        try (Connection holder = db.dataSource().getConnection()) {
            // A third session holds one row in flight, so the grouped write waits on it.
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement(
                    "SELECT 1 FROM scheduled_message WHERE id = ? FOR NO KEY UPDATE")) {
                lock.setObject(1, claimed.get(1).claim().id().value());
                lock.executeQuery().close();
            }
            Future<List<FinishResult>> finish = sessions.submit(() -> delivery.finish(claimed.stream()
                    .<Finish>map(m -> new Finish.Publish(m.claim(), m.revision())).toList()));
            awaitLockWaiters(1);
            Future<ChannelDeleted> deletion =
                    sessions.submit(() -> administration.deleteChannel(GENERAL));
            ChannelDeleted deleted = deletion.get(30, TimeUnit.SECONDS);
            holder.commit();

            assertThat(finish.get(30, TimeUnit.SECONDS)).extracting(FinishResult::written)
                    .containsOnly(Written.PUBLISHED);
            assertThat(deleted.failed()).as("the pending one; rows in flight are left to their finishing write")
                    .isEqualTo(1);
            assertThat(store.find(pending.id()).orElseThrow().failureReason()).contains(FailureReason.CHANNEL_DELETED);
        } finally {
            sessions.shutdownNow();
        }
    }

    private void createDue(int count) {
        for (int i = 0; i < count; i++) {
            createdMessage(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(inSeconds(-60 - i)).build()));
        }
    }

    /** Waits until {@code count} sessions of the scratch database wait on a lock. */
    private static void awaitLockWaiters(int count) throws SQLException {
        try (Connection watcher = db.dataSource().getConnection();
             PreparedStatement waiting = watcher.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
            Poll.until(count + " sessions to wait on a lock", Duration.ofSeconds(10), () -> {
                try (ResultSet rs = waiting.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }, waiters -> waiters >= count);
        }
    }

    /** A pool that cannot give out a connection, as HikariCP answers while the database is down. */
    private static final class UnreachableDataSource implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            throw new SQLTransientConnectionException("connection refused by the test", "08001");
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}

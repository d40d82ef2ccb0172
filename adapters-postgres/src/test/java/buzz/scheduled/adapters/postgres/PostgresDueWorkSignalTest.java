package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal.ListenSettings;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.DueWorkSignal.Wake;
import buzz.scheduled.application.testing.Poll;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The LISTEN side of the wake-up signal against a real PostgreSQL with this build's migrations (whose V3
 * triggers NOTIFY {@code buzz_scheduled_due}): notifications carry the nearest due time, arrive only at
 * commit, survive a killed connection (reconnect with backoff, then one "recompute" notification), and close
 * promptly.
 */
class PostgresDueWorkSignalTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final ListenSettings FAST = new ListenSettings(Duration.ofMillis(20), Duration.ofMillis(200),
            Duration.ofSeconds(30));

    private final List<PostgresDueWorkSignal> signals = new ArrayList<>();

    @BeforeEach
    void empty() {
        db.truncateAllTables();
    }

    @AfterEach
    void close() {
        signals.forEach(PostgresDueWorkSignal::close);
    }

    private PostgresDueWorkSignal listening(PostgresDueWorkSignal.Connector connector) {
        PostgresDueWorkSignal signal = new PostgresDueWorkSignal(connector, FAST);
        signals.add(signal);
        signal.start();
        Poll.until("LISTEN", signal::listening);
        // The first connect reports a notification without a time; take it so tests see only their own.
        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.empty()));
        return signal;
    }

    private static PostgresDueWorkSignal.Connector scratch() {
        return PostgresDueWorkSignal.connectorFor(DatabaseUrl.parse(db.jdbcUrl()));
    }

    /** The same server's {@code postgres} database: notifications never cross databases. */
    private static PostgresDueWorkSignal.Connector otherDatabase() {
        return PostgresDueWorkSignal.connectorFor(new DatabaseUrl("jdbc:postgresql://" + db.host() + ":" + db.port()
                + "/postgres", Optional.of(db.user()), db.password()));
    }

    @Test
    void rowEntersScheduled_notifiedWithItsDueTime() throws SQLException {
        PostgresDueWorkSignal signal = listening(scratch());
        Instant due = Instant.parse("2030-01-01T00:00:01.250Z");

        insertScheduled(due);

        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.of(due)));
    }

    @Test
    void severalRowsInOneStatement_firstWakeNamesTheNearest_laterWakesOnlyLaterTimes() throws SQLException {
        PostgresDueWorkSignal signal = listening(scratch());
        Instant nearest = Instant.parse("2030-01-01T00:00:00Z");

        try (Connection connection = db.dataSource().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json,"
                    + " due_at) SELECT gen_random_uuid(), repeat('a', 64), 'general', 1, 'scheduled',"
                    + " md5(g::text) || md5(g::text), '{}', timestamptz '2030-01-01 00:00:00Z' + g * interval '1 minute'"
                    + " FROM generate_series(0, 9) g");
        }

        // V3's row triggers send one notification per row, in row order, delivered at commit. They may reach
        // the listener in one read or several, so the dispatcher may wake more than once: the first wake must
        // name the nearest row, and any later wake only later rows, never "recompute".
        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.of(nearest)));
        List<Wake> later = new ArrayList<>();
        for (Wake wake = signal.awaitWork(Duration.ofMillis(300)); !(wake instanceof Wake.TimedOut);
                wake = signal.awaitWork(Duration.ofMillis(300))) {
            later.add(wake);
        }
        assertThat(later).hasSizeLessThanOrEqualTo(9).allSatisfy(wake -> assertThat(wake)
                .isInstanceOfSatisfying(Wake.Notified.class, notified -> assertThat(notified.nearest())
                        .hasValueSatisfying(at -> assertThat(at).isAfter(nearest)
                                .isBeforeOrEqualTo(nearest.plus(Duration.ofMinutes(9))))));
    }

    @Test
    void uncommittedInsert_notNotifiedUntilCommit() throws SQLException {
        PostgresDueWorkSignal signal = listening(scratch());
        Instant due = Instant.parse("2030-01-01T00:00:00Z");

        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            insertScheduled(connection, due);
            assertThat(signal.awaitWork(Duration.ofMillis(300))).isEqualTo(new Wake.TimedOut());
            connection.commit();
        }

        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.of(due)));
    }

    @Test
    void rowLeavesScheduled_notNotified() throws SQLException {
        UUID id = insertScheduled(Instant.parse("2030-01-01T00:00:00Z"));
        PostgresDueWorkSignal signal = listening(scratch());

        execute("UPDATE scheduled_message SET state = 'claimed', fencing_token = nextval('fencing_token_seq'),"
                + " lease_until = now() + interval '30 seconds' WHERE id = '" + id + "'");

        assertThat(signal.awaitWork(Duration.ofMillis(300))).isEqualTo(new Wake.TimedOut());
    }

    @Test
    void unreadablePayload_notifiedWithoutATime() throws SQLException {
        PostgresDueWorkSignal signal = listening(scratch());

        execute("NOTIFY " + PostgresDueWorkSignal.CHANNEL + ", 'not a number'");

        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.empty()));
    }

    @Test
    void listeningConnectionKilled_reconnects_reportsARecompute_andHearsNotificationsAgain() throws SQLException {
        PostgresDueWorkSignal signal = listening(scratch());

        execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
                + PostgresDueWorkSignal.APPLICATION_NAME + "' AND datname = current_database()");
        Poll.until("the reconnect", () -> signal.connects() == 2 && signal.listening());

        assertThat(signal.failures()).isEqualTo(1);
        assertThat(signal.outages()).as("a drop the immediate reconnect repaired is no outage (F30)").isZero();
        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.empty()));
        Instant due = Instant.parse("2030-06-01T12:00:00Z");
        insertScheduled(due);
        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.of(due)));
    }

    @Test
    void serverEndsIdleSessionsAfterASecond_theListeningSessionStaysAndHears() throws SQLException {
        db.executeOnServer("ALTER DATABASE " + db.databaseName() + " SET idle_session_timeout = '1s'");
        try (Connection control = java.sql.DriverManager.getConnection(db.jdbcUrl());
             Statement pidOf = control.createStatement();
             java.sql.ResultSet row = pidOf.executeQuery("SELECT pg_backend_pid()")) {
            row.next();
            int idle = row.getInt(1);
            PostgresDueWorkSignal signal = listening(scratch());

            Poll.until("the server to end an idle session of this database", Duration.ofSeconds(10),
                    () -> db.executeOnServer("SELECT 1 FROM pg_stat_activity WHERE pid = " + idle) == 0);

            assertThat(signal.listening()).isTrue();
            assertThat(signal.connects()).as("the listener's own session was never ended (F30)").isEqualTo(1);
            assertThat(signal.failures()).isZero();
            Instant due = Instant.parse("2030-07-01T09:00:00Z");
            insertScheduled(due);
            assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.of(due)));
        } finally {
            db.executeOnServer("ALTER DATABASE " + db.databaseName() + " RESET idle_session_timeout");
        }
    }

    @Test
    void listeningSessionKeepsDropping_isOneOutage_overOnceItListensSteadily_thenADropIsQuietAgain() {
        PostgresDueWorkSignal signal = new PostgresDueWorkSignal(scratch(), new ListenSettings(Duration.ofMillis(20),
                Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofSeconds(3), Duration.ofSeconds(2)));
        signals.add(signal);
        signal.start();
        Poll.until("LISTEN", signal::listening);

        for (int drop = 1; drop <= 4; drop++) {
            long connected = signal.connects();
            assertThat(db.terminateSessions(PostgresDueWorkSignal.APPLICATION_NAME)).isEqualTo(1);
            Poll.until("reconnect " + drop, () -> signal.connects() == connected + 1 && signal.listening());
        }

        assertThat(signal.outages()).as("four drops in quick succession are one outage (F33)").isEqualTo(1);
        assertThat(signal.standing()).isInstanceOfSatisfying(ListenerStandings.Standing.Outage.class,
                outage -> assertThat(outage.drops()).isEqualTo(4));
        Poll.until("the outage to be over once it listened steadily for 2 s", Duration.ofSeconds(10),
                () -> signal.standing() instanceof ListenerStandings.Standing.Steady);

        long connected = signal.connects();
        db.terminateSessions(PostgresDueWorkSignal.APPLICATION_NAME);
        Poll.until("the quiet repair", () -> signal.connects() == connected + 1 && signal.listening());
        assertThat(signal.outages()).as("a single drop after that is repaired quietly").isEqualTo(1);
    }

    @Test
    void databaseUnreachable_retriesWithBackoff_whileWaitsFallBackToTheirTimeout() {
        AtomicInteger attempts = new AtomicInteger();
        PostgresDueWorkSignal.Connector real = scratch();
        PostgresDueWorkSignal signal = new PostgresDueWorkSignal(() -> {
            if (attempts.incrementAndGet() <= 3) {
                throw new SQLException("connection refused (test)");
            }
            return real.open();
        }, FAST);
        signals.add(signal);
        signal.start();

        Poll.until("the first refused attempt", () -> signal.failures() >= 1);
        assertThat(signal.awaitWork(Duration.ofSeconds(5))).as("going down wakes the waiter once, to re-plan")
                .isEqualTo(new Wake.Notified(Optional.empty()));
        Poll.until("the third refused attempt", () -> signal.failures() >= 3);
        assertThat(signal.awaitWork(Duration.ofMillis(10))).as("not once per attempt").isEqualTo(new Wake.TimedOut());
        Poll.until("the fourth attempt to connect", signal::listening);

        assertThat(signal.failures()).isEqualTo(3);
        assertThat(attempts).as("three refused, the fourth listens, the fifth sends its test notification").hasValue(5);
        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.empty()));
    }

    @Test
    void listen_thatDoesNotHearItsOwnTestNotification_isNotListening_andKeepsRetrying() {
        // The test notification goes to another database, as a transaction-mode pooler would lose it.
        AtomicInteger opened = new AtomicInteger();
        PostgresDueWorkSignal.Connector listener = scratch();
        PostgresDueWorkSignal.Connector elsewhere = otherDatabase();
        PostgresDueWorkSignal signal = new PostgresDueWorkSignal(
                () -> opened.incrementAndGet() % 2 == 1 ? listener.open() : elsewhere.open(),
                new ListenSettings(Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofSeconds(30),
                        Duration.ofMillis(200)));
        signals.add(signal);
        signal.start();

        Poll.until("three failed self-checks", () -> signal.failures() >= 3);

        assertThat(signal.listening()).isFalse();
        assertThat(signal.connects()).isZero();
        assertThat(signal.awaitWork(Duration.ZERO)).as("the one wake-up as it first went down")
                .isEqualTo(new Wake.Notified(Optional.empty()));
        assertThat(signal.awaitWork(Duration.ofMillis(10))).as("no recompute before it really listens")
                .isEqualTo(new Wake.TimedOut());
    }

    @Test
    void dueAt_whileTheListenerIsDown_reachesTheWaiterAtOnce() {
        PostgresDueWorkSignal signal = new PostgresDueWorkSignal(() -> {
            throw new SQLException("too many connections for role (test)");
        }, FAST);
        signals.add(signal);
        signal.start();
        Poll.until("a failed attempt", () -> signal.failures() >= 1);
        // The count goes up before the wake-up is handed off: wait for it rather than look once.
        assertThat(signal.awaitWork(Duration.ofSeconds(5))).as("the wake-up as it went down")
                .isEqualTo(new Wake.Notified(Optional.empty()));
        Instant due = Instant.parse("2030-03-01T10:00:00Z");

        signal.dueAt(due);

        assertThat(signal.listening()).isFalse();
        assertThat(signal.awaitWork(Duration.ofSeconds(5))).isEqualTo(new Wake.Notified(Optional.of(due)));
    }

    @Test
    void anotherListenersTestNotification_isIgnored() throws SQLException {
        PostgresDueWorkSignal signal = listening(scratch());

        execute("NOTIFY " + PostgresDueWorkSignal.CHANNEL + ", '" + PostgresDueWorkSignal.SELF_CHECK_PREFIX
                + UUID.randomUUID() + "'");

        assertThat(signal.awaitWork(Duration.ofMillis(500))).isEqualTo(new Wake.TimedOut());
    }

    @Test
    void close_whileListening_endsPromptly_andWakeUpStillWorks() {
        PostgresDueWorkSignal signal = listening(scratch());

        long before = System.nanoTime();
        signal.close();
        Duration took = Duration.ofNanos(System.nanoTime() - before);

        assertThat(took).isLessThan(Duration.ofSeconds(2));
        assertThat(signal.listening()).isFalse();
        signal.wakeUp();
        assertThat(signal.awaitWork(Duration.ofSeconds(1))).isEqualTo(new Wake.Notified(Optional.empty()));
    }

    @Test
    void withAHorizon_onlyRowsClaimableWithinItAreNotified_includingARowMovedIntoIt() throws Exception {
        PostgresDueWorkSignal signal = new PostgresDueWorkSignal(scratch(), FAST, Duration.ofSeconds(30));
        signals.add(signal);
        signal.start();
        Poll.until("LISTEN", signal::listening);
        assertThat(query("SELECT seconds FROM due_notice_horizon")).as("backstop poll 30 s plus the 30 s margin")
                .isEqualTo("60");

        try (Connection raw = scratch().open(); Statement listen = raw.createStatement()) {
            listen.execute("LISTEN " + PostgresDueWorkSignal.CHANNEL);
            Instant now = Instant.now();
            Instant far = now.plus(Duration.ofHours(2)).truncatedTo(ChronoUnit.MILLIS);
            Instant near = now.plusSeconds(10).truncatedTo(ChronoUnit.MILLIS);
            Instant moved = now.plusSeconds(20).truncatedTo(ChronoUnit.MILLIS);
            UUID later = insertScheduled(far);
            insertScheduled(near);
            execute("UPDATE scheduled_message SET due_at = timestamptz 'epoch' + " + moved.toEpochMilli()
                    + " * interval '1 millisecond' WHERE id = '" + later + "'");

            // Notifications arrive in commit order: once the moved row's has come, the far row's would have too.
            List<String> heard = heardUntil(raw, "the moved row's notification",
                    payloads -> payloads.contains(Long.toString(moved.toEpochMilli())));
            assertThat(heard).as("the near row and the row moved near are notified; the row two hours out is not")
                    .containsExactly(Long.toString(near.toEpochMilli()), Long.toString(moved.toEpochMilli()));
        }
    }

    @Test
    void horizon_greatestOfAllListenersStands_aShorterPollNeverLowersIt() throws Exception {
        for (Duration poll : List.of(Duration.ofSeconds(600), Duration.ofSeconds(10))) {
            PostgresDueWorkSignal signal = new PostgresDueWorkSignal(scratch(), FAST, poll);
            signals.add(signal);
            signal.start();
            Poll.until("LISTEN", signal::listening);
            assertThat(query("SELECT seconds FROM due_notice_horizon")).as("after a node with poll " + poll)
                    .isEqualTo("630");
        }
        // With that horizon a row due in ten minutes is notified (a node may sleep ten minutes).
        try (Connection raw = scratch().open(); Statement listen = raw.createStatement()) {
            listen.execute("LISTEN " + PostgresDueWorkSignal.CHANNEL);
            Instant due = Instant.now().plusSeconds(600).truncatedTo(ChronoUnit.MILLIS);
            insertScheduled(due);
            List<String> heard = heardUntil(raw, "the notification of the row due in ten minutes",
                    payloads -> !payloads.isEmpty());
            assertThat(heard).containsExactly(Long.toString(due.toEpochMilli()));
        }
    }

    @Test
    void longestSleep_mustBePositive() {
        assertThatThrownBy(() -> new PostgresDueWorkSignal(scratch(), FAST, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longest sleep");
    }

    /** The payloads a plain {@code LISTEN} session has heard, read until {@code done} holds for them (10 s at most). */
    private static List<String> heardUntil(Connection listener, String what,
                                           Predicate<List<String>> done) throws Exception {
        PGConnection pg = listener.unwrap(PGConnection.class);
        List<String> heard = new ArrayList<>();
        return Poll.until(what, Duration.ofSeconds(10), () -> {
            PGNotification[] batch = pg.getNotifications(100);
            for (PGNotification notification : batch == null
                    ? new PGNotification[0] : batch) {
                heard.add(notification.getParameter());
            }
            return List.copyOf(heard);
        }, done);
    }

    private static String query(String sql) throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    @Test
    void payload_epochMillis_parsed_elseRecompute() {
        assertThat(PostgresDueWorkSignal.parse("1893456000250")).contains(Instant.parse("2030-01-01T00:00:00.250Z"));
        assertThat(PostgresDueWorkSignal.parse("")).isEmpty();
        assertThat(PostgresDueWorkSignal.parse("12abc")).isEmpty();
        assertThat(PostgresDueWorkSignal.parse("99999999999999999999")).isEmpty();
    }

    private static UUID insertScheduled(Instant due) throws SQLException {
        try (Connection connection = db.dataSource().getConnection()) {
            return insertScheduled(connection, due);
        }
    }

    private static UUID insertScheduled(Connection connection, Instant due) throws SQLException {
        UUID id = UUID.randomUUID();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO scheduled_message (id, owner, channel,"
                + " revision, state, event_id, event_json, due_at) VALUES (?, ?, 'general', 1, 'scheduled', ?, '{}', ?)")) {
            insert.setObject(1, id);
            insert.setString(2, "a".repeat(64));
            insert.setString(3, id.toString().replace("-", "").repeat(2));
            insert.setObject(4, java.time.OffsetDateTime.ofInstant(due, java.time.ZoneOffset.UTC));
            insert.executeUpdate();
        }
        return id;
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}

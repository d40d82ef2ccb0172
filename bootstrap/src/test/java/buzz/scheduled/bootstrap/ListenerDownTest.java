package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The LISTEN connection kept out of the database: {@code BUZZ_DIRECT_DATABASE_URL} logs in as a role of its own, whose
 * {@code CONNECTION LIMIT} the test drops to 0 and whose session it ends, so every reconnect is refused ("too many
 * connections for role") while the pool goes on working. A node's own creates and send-nows must still wake its own
 * dispatcher at once (the backstop poll is 30 s): the scheduled message reaches the real relay within a second of its
 * due time and the send-now within a second of its answer.
 */
class ListenerDownTest {

    private static final Duration LATENESS_LIMIT = Duration.ofSeconds(1);
    private static final String ROLE = "buzz_listen_" + HexFormat.of().toHexDigits(new SecureRandom().nextInt());

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @BeforeAll
    static void createRole() throws SQLException {
        // Migrations run over the direct URL too, so the role may create in the public schema.
        execute("CREATE ROLE " + ROLE + " LOGIN", "GRANT CONNECT, CREATE ON DATABASE \"" + db.databaseName() + "\" TO "
                + ROLE, "GRANT USAGE, CREATE ON SCHEMA public TO " + ROLE);
    }

    @AfterAll
    static void dropRole() throws SQLException {
        execute("REASSIGN OWNED BY " + ROLE + " TO CURRENT_USER", "DROP OWNED BY " + ROLE, "DROP ROLE " + ROLE);
    }

    @Test
    void listenRefusedByTheRoleLimit_ownCreateAndSendNow_stillPublishedWithinASecond() throws Exception {
        int httpPort = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        String direct = "postgres://" + ROLE + "@" + db.host() + ":" + db.port() + "/" + db.databaseName();
        try (TestRelay relay = TestRelay.start()) {
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "RELAY_URL", relay.url().toString(), "DATABASE_URL", db.postgresUrl(),
                    "BUZZ_DIRECT_DATABASE_URL", direct), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            Poll.until("LISTEN", Duration.ofSeconds(15), () -> ServeProcesses.output(log).contains("listening on buzz_scheduled_due"));

            execute("ALTER ROLE " + ROLE + " CONNECTION LIMIT 0",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + ROLE + "'");
            Poll.until("the listener to report itself down", Duration.ofSeconds(15),
                    () -> ServeProcesses.output(log).contains("due-work listener is down"));

            OwnerClient owner = new OwnerClient(httpPort);
            NostrEvent scheduled = owner.message("listen-down", "due in three seconds", Duration.ofSeconds(3));
            NostrEvent later = owner.message("listen-down", "sent now", Duration.ofMinutes(10));
            try (LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"ids\":[\"" + scheduled.id().hex() + "\",\""
                    + later.id().hex() + "\"]}")) {
                assertThat(owner.schedule(scheduled).status()).isEqualTo(201);
                OwnerClient.Reply stored = owner.schedule(later);
                assertThat(stored.status()).isEqualTo(201);

                List<LiveEvents.Arrival> first = live.await(1, Duration.ofSeconds(40));
                Instant due = Instant.ofEpochSecond(scheduled.createdAt());
                OwnerClient.Reply sent = owner.sendNow(stored.json().get("id").asText());
                Instant answered = Instant.now();
                assertThat(sent.status()).as(sent.text()).isEqualTo(202);
                List<LiveEvents.Arrival> both = live.await(2, Duration.ofSeconds(40));

                assertThat(first.get(0).eventId()).isEqualTo(scheduled.id().hex());
                Duration lateness = Duration.between(due, first.get(0).at());
                Duration sendNow = Duration.between(answered, both.get(1).at());
                System.out.printf("LISTEN refused by the role limit: scheduled message %d ms after due, send-now %d ms"
                        + " after its answer%n", lateness.toMillis(), sendNow.toMillis());
                assertThat(first.get(0).at()).as("never early").isAfterOrEqualTo(due);
                assertThat(lateness).as("own create, LISTEN down").isLessThanOrEqualTo(LATENESS_LIMIT);
                assertThat(both.get(1).eventId()).isEqualTo(later.id().hex());
                assertThat(sendNow).as("own send-now, LISTEN down").isLessThanOrEqualTo(LATENESS_LIMIT);
            }
            assertThat(ServeProcesses.query(db.jdbcUrl(), "SELECT count(*) FROM pg_stat_activity WHERE usename = '"
                    + ROLE + "'")).as("the listener stayed out the whole time").isEqualTo("0");
            assertThat(ServeProcesses.occurrences(ServeProcesses.output(log), "due-work listener is down")).as("said once, not per attempt").isEqualTo(1);
            assertThat(ServeProcesses.output(log)).doesNotContain("for due work again");
        }
    }

    private static void execute(String... statements) throws SQLException {
        try (Connection connection = db.dataSource().getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

}

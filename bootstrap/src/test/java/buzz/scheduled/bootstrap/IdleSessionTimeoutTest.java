package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/failure-scenarios.md F30: the server ends every session idle for 2 s ({@code idle_session_timeout}, set on the
 * test's database), under a running {@code serve} (its own JVM) and the real Node relay, for eight times that long.
 * The sidecar's own sessions (the listener's, the pool's, the database watch's) turn the timeout off for themselves,
 * since they are idle by design between uses, so none is ended: messages due every four seconds, each after a longer
 * silence than the timeout, reach the relay within a second of their due time, and the log has neither a "listener
 * is down" line nor a warning about a pooled connection found dead.
 */
class IdleSessionTimeoutTest {

    private static final Duration LATENESS_LIMIT = Duration.ofSeconds(1);
    private static final int MESSAGES = 4;

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void f30_serverEndsSessionsIdleForTwoSeconds_deliveriesOnTime_andTheListenerNeverReportsItselfDown()
            throws Exception {
        db.executeOnServer("ALTER DATABASE " + db.databaseName() + " SET idle_session_timeout = '2s'");
        int httpPort = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        try (TestRelay relay = TestRelay.start();
             Connection control = DriverManager.getConnection(db.jdbcUrl());
             Statement pidOf = control.createStatement();
             ResultSet row = pidOf.executeQuery("SELECT pg_backend_pid()")) {
            row.next();
            int idleControl = row.getInt(1);
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "RELAY_URL", relay.url().toString(), "DATABASE_URL", db.postgresUrl()), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            Poll.until("LISTEN", Duration.ofSeconds(15),
                    () -> ServeProcesses.output(log).contains("listening on buzz_scheduled_due for due work"));

            OwnerClient owner = new OwnerClient(httpPort);
            // A first create loads the admission path of a cold JVM, which can take seconds on a busy machine.
            assertThat(owner.schedule(owner.message("f30", "warm-up", Duration.ofHours(1))).status()).isEqualTo(201);
            Instant first = Instant.now().plusSeconds(5);
            Map<String, Instant> due = new LinkedHashMap<>();
            List<NostrEvent> events = new ArrayList<>();
            for (int i = 0; i < MESSAGES; i++) {
                long at = first.getEpochSecond() + 4L * i;
                NostrEvent event = owner.messageAt("f30", "after a silence " + i, at);
                events.add(event);
                due.put(event.id().hex(), Instant.ofEpochSecond(at));
            }
            String filter = "{\"ids\":[" + due.keySet().stream().map(id -> "\"" + id + "\"")
                    .collect(Collectors.joining(",")) + "]}";
            try (LiveEvents live = LiveEvents.subscribe(relay.url(), filter)) {
                for (NostrEvent event : events) {
                    OwnerClient.Reply created = owner.schedule(event);
                    assertThat(created.status()).as(created.text()).isEqualTo(201);
                }
                assertThat(Instant.now()).as("every create was stored before the first due time").isBefore(first);
                List<LiveEvents.Arrival> arrivals = live.await(MESSAGES, Duration.ofSeconds(60));

                Duration worst = Duration.ZERO;
                for (LiveEvents.Arrival arrival : arrivals) {
                    Instant dueAt = due.get(arrival.eventId());
                    assertThat(arrival.at()).as("never before the due time").isAfterOrEqualTo(dueAt);
                    Duration lateness = Duration.between(dueAt, arrival.at());
                    worst = lateness.compareTo(worst) > 0 ? lateness : worst;
                }
                System.out.printf("F30: idle_session_timeout 2 s, %d messages 4 s apart delivered, worst lateness %d"
                        + " ms%n", arrivals.size(), worst.toMillis());
                assertThat(worst).as("worst lateness").isLessThanOrEqualTo(LATENESS_LIMIT);
            }
            assertThat(db.executeOnServer("SELECT 1 FROM pg_stat_activity WHERE pid = " + idleControl))
                    .as("the server did end idle sessions during the run").isZero();
            String output = ServeProcesses.output(log);
            assertThat(output).as("no listener outage for a timeout the listener turns off for itself")
                    .doesNotContain("listener is down").doesNotContain(" ERROR ");
            assertThat(output).as("no pooled session ended under the pool either")
                    .doesNotContain("Failed to validate connection");
            assertThat(ServeProcesses.occurrences(output, "listening on buzz_scheduled_due for due work"))
                    .isEqualTo(1);
        } finally {
            db.executeOnServer("ALTER DATABASE " + db.databaseName() + " RESET idle_session_timeout");
        }
    }
}

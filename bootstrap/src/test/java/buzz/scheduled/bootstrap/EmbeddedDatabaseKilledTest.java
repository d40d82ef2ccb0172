package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import buzz.scheduled.bootstrap.database.PostmasterPidFile;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/failure-scenarios.md F25: the embedded PostgreSQL's postmaster is killed with SIGKILL under a running
 * {@code serve} (its own JVM, the real Node relay). The sidecar restarts it on the same port and data, so
 * {@code /healthz} stays up, {@code /readyz} is ready again after the restart, every message admitted before the
 * kill is delivered, and the log says each change once. When it keeps dying, the sidecar gives up and
 * {@code /healthz} fails so a supervisor restarts it.
 */
class EmbeddedDatabaseKilledTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void postmasterKilled_isRestarted_healthzStaysUp_andMessagesAdmittedBeforeAreDelivered() throws Exception {
        Path dataDir = work.resolve("var");
        Path log = work.resolve("serve.log");
        int httpPort = ServeProcesses.freePort();
        try (TestRelay relay = TestRelay.start()) {
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", dataDir.toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "RELAY_URL", relay.url().toString()), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            OwnerClient owner = new OwnerClient(httpPort);
            NostrEvent dueSoon = owner.message("f25", "due while the database may still be down", Duration.ofSeconds(3));
            NostrEvent dueLater = owner.message("f25", "due after the restart", Duration.ofSeconds(12));
            String filter = "{\"ids\":[\"" + dueSoon.id().hex() + "\",\"" + dueLater.id().hex() + "\"]}";
            try (LiveEvents live = LiveEvents.subscribe(relay.url(), filter)) {
                assertThat(owner.schedule(dueSoon).status()).isEqualTo(201);
                assertThat(owner.schedule(dueLater).status()).isEqualTo(201);
                long killed = postmasterPid(dataDir);
                int linesBefore = lines(log);

                Instant killedAt = Instant.now();
                assertThat(ProcessHandle.of(killed).orElseThrow().destroyForcibly()).isTrue(); // SIGKILL
                HealthProbe probe = HealthProbe.start(httpPort);
                // A quick restart can fall between two of the database watch's checks (one a second at most, fewer
                // while delivery's statements are answered: docs/failure-scenarios.md F32), so readiness may never
                // see the outage; the restart itself is what must happen.
                Poll.until("the sidecar to restart the postmaster", Duration.ofSeconds(60),
                        () -> ServeProcesses.output(log).contains("embedded PostgreSQL restarted (pid"));
                Poll.until("readiness after the restart", Duration.ofSeconds(60),
                        () -> status(httpPort, "/readyz") == 200);
                Instant readyAgain = Instant.now();
                probe.stop();

                List<LiveEvents.Arrival> arrivals = live.await(2, Duration.ofSeconds(60));
                assertThat(arrivals).extracting(LiveEvents.Arrival::eventId)
                        .containsExactlyInAnyOrder(dueSoon.id().hex(), dueLater.id().hex());
                for (LiveEvents.Arrival arrival : arrivals) {
                    long due = arrival.eventId().equals(dueSoon.id().hex()) ? dueSoon.createdAt() : dueLater.createdAt();
                    assertThat(arrival.at()).as("never early").isAfterOrEqualTo(Instant.ofEpochSecond(due));
                }
                long restarted = postmasterPid(dataDir);
                assertThat(restarted).as("a new postmaster").isNotEqualTo(killed);
                assertThat(ProcessHandle.of(restarted).filter(ProcessHandle::isAlive)).isPresent();
                assertThat(probe.answers()).as("/healthz answered throughout").isPositive();
                assertThat(probe.failures()).as("/healthz never failed").isZero();

                // The relay hands an event on before the sidecar has its answer and logs the delivery.
                Poll.until("both deliveries to be logged", Duration.ofSeconds(10),
                        () -> ServeProcesses.occurrences(ServeProcesses.output(log), "delivery - published id=") == 2);
                String output = Files.readString(log);
                assertThat(ServeProcesses.occurrences(output, "exited unexpectedly; restarting it")).isEqualTo(1);
                assertThat(ServeProcesses.occurrences(output, "embedded PostgreSQL restarted (pid " + restarted + ")")).isEqualTo(1);
                int noAnswer = ServeProcesses.occurrences(output, "the database does not answer");
                assertThat(noAnswer).as("the watch's outage, if it saw one, is said once").isLessThanOrEqualTo(1);
                assertThat(ServeProcesses.occurrences(output, "the database answers again")).isEqualTo(noAnswer);
                if (output.contains("due-work listener is down")) {
                    // Its end is said once the listener has listened steadily for 10 s (F33).
                    Poll.until("the listener to say it listens steadily again", Duration.ofSeconds(30),
                            () -> ServeProcesses.output(log).contains("for due work again, steadily"));
                }
                int outageLines = lines(log) - linesBefore;
                // Quiet once recovered and delivered: nothing more is logged while the sidecar just runs.
                int settled = lines(log);
                Instant settledAt = Instant.now();
                Poll.until("five quiet seconds", Duration.ofSeconds(20),
                        () -> Duration.between(settledAt, Instant.now()).toSeconds() >= 5);
                int afterQuiet = lines(log) - settled;
                System.out.printf("F25: postmaster %d killed; ready again after %d ms as pid %d; %d log lines over the"
                                + " outage and both deliveries, %d in the 5 s after%n", killed,
                        Duration.between(killedAt, readyAgain).toMillis(), restarted, outageLines, afterQuiet);
                assertThat(afterQuiet).as("log lines once recovered: %s", ServeProcesses.output(log).lines()
                        .skip(settled).toList()).isZero();
            }
            assertThat(owner.get(owner.schedule(owner.message("f25", "after", Duration.ofHours(1))).json()
                    .get("id").asText()).status()).as("admission works again").isEqualTo(200);
        }
    }

    @Test
    void postmasterKeepsDying_sidecarGivesUp_andHealthzFailsForTheSupervisor() throws Exception {
        Path dataDir = work.resolve("var");
        Path log = work.resolve("serve.log");
        int httpPort = ServeProcesses.freePort();
        Process serve = processes.start(Map.of("BUZZ_DATA_DIR", dataDir.toString(),
                "HTTP_PORT", Integer.toString(httpPort)), log);
        ServeProcesses.awaitHealthy(serve, httpPort, log);

        for (int kill = 1; kill <= 3; kill++) {
            long pid = postmasterPid(dataDir);
            ProcessHandle.of(pid).orElseThrow().destroyForcibly();
            int restarts = kill;
            Poll.until("restart " + kill, Duration.ofSeconds(60), () -> ServeProcesses.occurrences(ServeProcesses.output(log),
                    "embedded PostgreSQL restarted") == restarts && status(httpPort, "/readyz") == 200);
        }
        assertThat(status(httpPort, "/healthz")).isEqualTo(200);
        ProcessHandle.of(postmasterPid(dataDir)).orElseThrow().destroyForcibly();

        Poll.until("/healthz to fail", Duration.ofSeconds(20), () -> status(httpPort, "/healthz") == 503);
        HttpResponse<String> health = get(httpPort, "/healthz");
        assertThat(health.body()).contains("\"error\":\"unhealthy\"").contains("exited 4 times within 10 minutes");
        assertThat(ServeProcesses.occurrences(ServeProcesses.output(log), "will not be restarted")).isEqualTo(1);
        assertThat(serve.isAlive()).as("the process stays up for the supervisor to see /healthz").isTrue();
    }

    private static long postmasterPid(Path dataDir) throws IOException {
        return PostmasterPidFile.read(dataDir.resolve(EmbeddedDatabase.PGDATA)).orElseThrow().pid();
    }

    private static int status(int port, String path) {
        try {
            return get(port, path).statusCode();
        } catch (IOException | InterruptedException e) {
            return -1;
        }
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int lines(Path log) {
        return (int) ServeProcesses.output(log).lines().count();
    }

    /** Asks {@code /healthz} every 100 ms on its own thread, counting answers and failures. */
    private static final class HealthProbe {
        private final AtomicInteger answers = new AtomicInteger();
        private final AtomicInteger failures = new AtomicInteger();
        private volatile boolean running = true;
        private Thread thread;

        static HealthProbe start(int port) {
            HealthProbe probe = new HealthProbe();
            probe.thread = Thread.ofVirtual().start(() -> {
                while (probe.running) {
                    int status = status(port, "/healthz");
                    (status == 200 ? probe.answers : probe.failures).incrementAndGet();
                    try {
                        Thread.sleep(100); // sampling interval
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            return probe;
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(Duration.ofSeconds(5));
        }

        int answers() {
            return answers.get();
        }

        int failures() {
            return failures.get();
        }
    }
}

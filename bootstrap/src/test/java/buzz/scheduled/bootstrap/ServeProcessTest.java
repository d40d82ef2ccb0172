package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import buzz.scheduled.bootstrap.database.PostmasterPidFile;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} as an operator runs it: a separate JVM with no {@code DATABASE_URL} (so the embedded PostgreSQL
 * under {@code BUZZ_DATA_DIR}), given a scheduled message through the real API (BIP-340 signed, NIP-98
 * authenticated), killed with SIGKILL and started again on the same data. Runs the test class path's
 * {@code Main}, or the shaded jar named by the system property {@code buzz.serve.jar}.
 */
class ServeProcessTest {

    /**
     * Bounds a hang, not a speed: a first start unpacks PostgreSQL and runs initdb, which took 42 s on a 2-core
     * machine under a load average of 15 (the times are printed; start-up speed belongs in a benchmark).
     */
    private static final Duration START_LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path work;

    private final ServeProcesses processes = new ServeProcesses();

    @AfterEach
    void stopLeftovers() throws InterruptedException {
        processes.close();
    }

    @Test
    void serve_killedWithSigkillAndStartedAgain_answersHealthzAndKeepsTheScheduledMessage() throws Exception {
        Path dataDir = work.resolve("var");
        int httpPort = ServeProcesses.freePort();

        Process first = startServe(dataDir, httpPort, work.resolve("first.log"));
        long firstStartMillis = ServeProcesses.awaitHealthy(first, httpPort, work.resolve("first.log"));
        String jdbcUrl = ServeProcesses.embeddedJdbcUrl(dataDir);
        assertThat(ServeProcesses.query(jdbcUrl, "SELECT count(*) FROM flyway_schema_history WHERE success")).isNotEqualTo("0");
        OwnerClient owner = new OwnerClient(httpPort);
        NostrEvent event = owner.message("general", "see you tomorrow", Duration.ofDays(1));
        OwnerClient.Reply created = owner.schedule(event);
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        String id = created.json().get("id").asText();
        String sidecarKey = Files.readString(dataDir.resolve("sidecar.key"));
        long orphanPid = PostmasterPidFile.read(dataDir.resolve(EmbeddedDatabase.PGDATA)).orElseThrow().pid();

        first.destroyForcibly(); // SIGKILL on Linux: no shutdown hook runs
        assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessHandle.of(orphanPid).filter(ProcessHandle::isAlive))
                .as("the killed JVM leaves its PostgreSQL running (the case a restart must recover from)")
                .isPresent();

        Process second = startServe(dataDir, httpPort, work.resolve("second.log"));
        long secondStartMillis = ServeProcesses.awaitHealthy(second, httpPort, work.resolve("second.log"));
        assertThat(ProcessHandle.of(orphanPid).filter(ProcessHandle::isAlive)).as("the orphan was stopped").isEmpty();
        assertThat(ServeProcesses.embeddedJdbcUrl(dataDir)).as("the port is remembered").isEqualTo(jdbcUrl);
        OwnerClient.Reply kept = owner.get(id);
        assertThat(kept.status()).as(kept.text()).isEqualTo(200);
        assertThat(kept.json().get("state").asText()).isEqualTo("scheduled");
        assertThat(kept.json().get("event_id").asText()).isEqualTo(event.id().hex());
        assertThat(kept.json().get("event").get("sig").asText()).isEqualTo(event.sig().hex());
        assertThat(Files.readString(dataDir.resolve("sidecar.key"))).as("the key made by the first start is kept")
                .isEqualTo(sidecarKey);
        long postmasterPid = PostmasterPidFile.read(dataDir.resolve(EmbeddedDatabase.PGDATA)).orElseThrow().pid();

        second.destroy(); // SIGTERM: a normal exit that runs the shutdown hook
        assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessHandle.of(postmasterPid).filter(ProcessHandle::isAlive))
                .as("the embedded server stops with the JVM").isEmpty();
        assertThat(dataDir.resolve(EmbeddedDatabase.PGDATA).resolve(PostmasterPidFile.NAME)).doesNotExist();
        assertThat(Files.readString(work.resolve("second.log"))).contains("stopping PostgreSQL (pid " + orphanPid + ")");

        System.out.printf("serve answered /healthz %d ms after launch (fresh data dir), %d ms after launch following"
                + " kill -9 (orphan stopped first)%n", firstStartMillis, secondStartMillis);
        assertThat(Duration.ofMillis(firstStartMillis)).isLessThan(START_LIMIT);
        assertThat(Duration.ofMillis(secondStartMillis)).isLessThan(START_LIMIT);
    }

    private Process startServe(Path dataDir, int httpPort, Path log) throws IOException {
        return processes.start(Map.of("BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(httpPort),
                "BUZZ_SCHEDULED_MESSAGES", "on"), log);
    }
}

package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import buzz.scheduled.bootstrap.database.PostmasterPidFile;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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

    private static final Duration START_LIMIT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    @TempDir
    Path work;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopLeftovers() throws InterruptedException {
        for (Process process : started) {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }

    @Test
    void serve_killedWithSigkillAndStartedAgain_answersHealthzAndKeepsTheScheduledMessage() throws Exception {
        Path dataDir = work.resolve("var");
        int httpPort = freePort();

        Process first = startServe(dataDir, httpPort, work.resolve("first.log"));
        long firstStartMillis = awaitHealthy(first, httpPort, work.resolve("first.log"));
        String jdbcUrl = embeddedJdbcUrl(dataDir);
        assertThat(query(jdbcUrl, "SELECT count(*) FROM flyway_schema_history WHERE success")).isNotEqualTo("0");
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
        long secondStartMillis = awaitHealthy(second, httpPort, work.resolve("second.log"));
        assertThat(ProcessHandle.of(orphanPid).filter(ProcessHandle::isAlive)).as("the orphan was stopped").isEmpty();
        assertThat(embeddedJdbcUrl(dataDir)).as("the port is remembered").isEqualTo(jdbcUrl);
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
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String jar = System.getProperty("buzz.serve.jar", "");
        List<String> command = jar.isBlank()
                ? List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve")
                : List.of(java, "-jar", jar, "serve");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        SidecarConfig.VARIABLES.forEach(env::remove);
        env.put("BUZZ_DATA_DIR", dataDir.toString());
        env.put("HTTP_PORT", Integer.toString(httpPort));
        env.put("BUZZ_SCHEDULED_MESSAGES", "on");
        Process process = builder.start();
        started.add(process);
        return process;
    }

    /** Polls {@code /healthz} until it answers 200; returns the milliseconds since the process started. */
    private static long awaitHealthy(Process process, int port, Path log) throws Exception {
        long launched = process.info().startInstant().map(i -> i.toEpochMilli()).orElseThrow();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                .timeout(Duration.ofSeconds(2)).build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("serve exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            try {
                HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return System.currentTimeMillis() - launched;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling interval, not a synchronisation stand-in
        }
        throw new AssertionError("serve did not answer /healthz within 90 s:\n" + Files.readString(log));
    }

    private static String embeddedJdbcUrl(Path dataDir) throws IOException {
        Properties state = new Properties();
        try (var in = Files.newInputStream(dataDir.resolve(EmbeddedDatabase.STATE_FILE))) {
            state.load(in);
        }
        return "jdbc:postgresql://localhost:" + state.getProperty("port") + "/postgres?user=postgres";
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    private static String query(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

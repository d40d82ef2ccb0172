package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import buzz.scheduled.bootstrap.database.EmbeddedSuperuser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/failure-scenarios.md F32 and docs/benchmarks.md "Idle cost": an idle {@code serve} (its own JVM, nothing
 * scheduled) on a cluster this test owns, which logs every statement ({@code log_statement = all}), with
 * {@code /readyz} asked every second as a Kubernetes probe would. Readiness answers from the database watch and costs
 * no statement; the watch's own check is spared whenever a statement of delivery's answered, and the lease reaper runs
 * in the watch's check slots, so the node issues at most one statement a second in all. Counted: statements with text
 * (the empty queries connection validation sends are left out, as {@code pg_stat_statements} leaves them out).
 */
class IdleCostTest {

    /** Past the first retention pass (15 s after start), so the window holds only what an idle node repeats. */
    private static final Duration WARM_UP = Duration.ofSeconds(20);
    private static final Duration WINDOW = Duration.ofSeconds(30);
    /** {@code log_line_prefix '%m [%a] '}: the application name in brackets, then the statement or execute line. */
    private static final Pattern STATEMENT = Pattern.compile(
            "(?m)^\\S+ \\S+ \\S+ \\[(buzz-[^\\]]*)\\] LOG:  (?:statement|execute [^:]*): (\\S.{0,40})");

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void f32_idleNodeWithReadinessProbedEverySecond_issuesAtMostOneStatementASecond() throws Exception {
        Path clusterDir = work.resolve("cluster");
        try (EmbeddedDatabase cluster = EmbeddedDatabase.start(clusterDir, Duration.ofSeconds(60),
                Duration.ofSeconds(20))) {
            ServeProcesses.execute(EmbeddedSuperuser.jdbcUrl(clusterDir, cluster, "postgres"),
                    "ALTER SYSTEM SET log_statement = 'all'", "ALTER SYSTEM SET log_line_prefix = '%m [%a] '",
                    "SELECT pg_reload_conf()");
            int httpPort = ServeProcesses.freePort();
            Path log = work.resolve("serve.log");
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "DATABASE_URL", cluster.jdbcUrl()), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            Thread.sleep(WARM_UP.toMillis()); // start-up statements (migrations, first passes) end; not synchronisation

            long before = serverLog(cluster).length();
            long started = System.nanoTime();
            int probes = 0;
            try (HttpClient http = HttpClient.newHttpClient()) {
                while (System.nanoTime() - started < WINDOW.toNanos()) {
                    HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + httpPort + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(ready.statusCode()).isEqualTo(200);
                    probes++;
                    Thread.sleep(1_000); // the probe's period, as a Kubernetes readiness probe asks
                }
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            String window = serverLog(cluster).substring((int) before);

            Map<String, Integer> byStatement = new TreeMap<>();
            int statements = 0;
            Matcher matcher = STATEMENT.matcher(window);
            while (matcher.find()) {
                statements++;
                byStatement.merge(matcher.group(1) + ": " + matcher.group(2).strip(), 1, Integer::sum);
            }
            System.out.printf("F32 idle cost: %d statements in %.1f s (%.2f/s) with /readyz asked %d times: %s%n",
                    statements, seconds, statements / seconds, probes, byStatement);
            assertThat(statements).as("statements over %.1f s: %s", seconds, byStatement)
                    .isPositive().isLessThanOrEqualTo((int) Math.ceil(seconds) + 1);
        }
    }

    /** Everything the cluster has logged so far (its logging collector writes under pgdata/log). */
    private static String serverLog(EmbeddedDatabase cluster) throws IOException {
        StringBuilder text = new StringBuilder();
        try (Stream<Path> files = Files.list(cluster.pgdata().resolve("log"))) {
            for (Path file : files.sorted().toList()) {
                text.append(Files.readString(file, StandardCharsets.UTF_8));
            }
        }
        return text.toString();
    }
}

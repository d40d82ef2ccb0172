package buzz.scheduled.bootstrap.access;

import static buzz.scheduled.bootstrap.access.OperatorViewStack.ALICE;
import static buzz.scheduled.bootstrap.access.OperatorViewStack.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator page in a real headless Chromium (the system's, driven by playwright-core from
 * {@code src/test/browser}), signing with NIP-98 through a test {@code window.nostr} that uses nostr-tools'
 * {@code finalizeEvent}: with an operator key the counts shown equal {@code GET /v1/admin/stats} and the relay's
 * words on a failure appear; with another key the page shows the API's refusal. Leaves a screenshot in
 * {@code target/operator-page.png} (the one in docs/ is a copy of it).
 */
class OperatorPageBrowserTest {
    private static final Path HARNESS = Path.of("src", "test", "browser");
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @TempDir
    static Path dataDir;

    private static OperatorViewStack stack;
    private static JsonNode shown;
    private static JsonNode stats;

    @BeforeAll
    static void loadThePage() throws Exception {
        stack = OperatorViewStack.start(db, dataDir, Map.of()).populate();
        stats = stack.client.send(OPERATOR, "GET", "/v1/admin/stats", null).json();
        installHarness();
        Path screenshot = Path.of("target", "operator-page.png").toAbsolutePath();
        ProcessBuilder node = new ProcessBuilder("node", "operator-page.mjs").directory(HARNESS.toFile());
        node.environment().put("ADMIN_URL", "http://127.0.0.1:" + stack.sidecar.httpPort() + "/admin");
        node.environment().put("OPERATOR_SECRET", OPERATOR.hex());
        node.environment().put("STRANGER_SECRET", ALICE.hex());
        node.environment().put("SCREENSHOT", screenshot.toString());
        String output = run(node, 120);
        shown = JSON.readTree(output.lines().filter(line -> line.startsWith("{")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("the harness printed no result:\n" + output)));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void operatorKey_pageShowsTheSameCountsAsTheApi() {
        JsonNode operator = shown.get("operator");

        assertThat(operator.get("loaded").asText()).isEqualTo("stats");
        assertThat(operator.get("counts")).isEqualTo(stats.get("counts"));
        assertThat(operator.get("counts").get("published").asInt()).isEqualTo(OperatorViewStack.PUBLISHED);
        assertThat(operator.get("overdue").asLong()).isEqualTo(stats.get("overdue").asLong());
        assertThat(operator.get("publishedLastHour").asLong())
                .isEqualTo(stats.get("throughput").get("published_last_hour").asLong());
        assertThat(operator.get("chartBars").asInt()).isPositive();
    }

    @Test
    void operatorKey_pageShowsTheFailureWithTheRelaysWords() {
        JsonNode operator = shown.get("operator");

        assertThat(operator.get("failures")).hasSize(1);
        assertThat(operator.get("failures").get(0).asText()).contains("relay_rejected")
                .contains(OperatorViewStack.REFUSAL).contains(stack.failed);
        assertThat(operator.get("searchRows")).hasSize(1);
        assertThat(operator.get("searchRows").get(0).asText()).contains(OperatorViewStack.REFUSAL)
                .doesNotContain(OperatorViewStack.SECRET_CONTENT);
    }

    @Test
    void operatorKey_pageSignsEveryCallForThePublicBaseUrlAndStoresNothing() {
        JsonNode operator = shown.get("operator");

        assertThat(operator.get("signedUrls")).isNotEmpty();
        operator.get("signedUrls").forEach(url -> assertThat(url.asText())
                .startsWith("http://127.0.0.1:" + stack.sidecar.httpPort() + "/v1/admin/"));
        assertThat(operator.get("localStorage").asInt()).isZero();
        assertThat(operator.get("cookies").asInt()).isZero();
    }

    @Test
    void otherKey_pageShowsTheRefusal() {
        JsonNode stranger = shown.get("stranger");

        assertThat(stranger.get("loaded").asText()).isEqualTo("error");
        assertThat(stranger.get("bannerStatus").asText()).isEqualTo("403");
        assertThat(stranger.get("banner").asText()).contains("forbidden")
                .contains(ALICE.publicKey().hex() + " is not an operator");
    }

    @Test
    void screenshot_isWritten() throws Exception {
        Path screenshot = Path.of("target", "operator-page.png");

        assertThat(screenshot).exists();
        assertThat(Files.size(screenshot)).isGreaterThan(10_000);
    }

    /** {@code npm ci} for the harness when its packages are missing (.ci/run installs them up front). */
    private static void installHarness() throws Exception {
        if (!Files.isDirectory(HARNESS.resolve("node_modules").resolve("playwright-core"))) {
            run(new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
                    .directory(HARNESS.toFile()), 300);
        }
    }

    private static String run(ProcessBuilder builder, int seconds) throws Exception {
        Process process = builder.redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                process.getInputStream().transferTo(out);
            } catch (java.io.IOException ignored) {
                // the process ended
            }
        });
        boolean ended = process.waitFor(seconds, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        reader.join(5_000);
        String output = out.toString(StandardCharsets.UTF_8);
        assertThat(ended).as(String.join(" ", builder.command()) + " ended:\n" + output).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", builder.command()) + ":\n" + output).isZero();
        return output;
    }

}

package buzz.scheduled.bootstrap.access;

import static buzz.scheduled.bootstrap.access.OperatorViewStack.ALICE;
import static buzz.scheduled.bootstrap.access.OperatorViewStack.BOB;
import static buzz.scheduled.bootstrap.access.OperatorViewStack.OPERATOR;
import static buzz.scheduled.bootstrap.access.OperatorViewStack.SECRET_CONTENT;
import static buzz.scheduled.bootstrap.access.OperatorViewStack.sample;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's view of a running sidecar after real deliveries, a relay refusal and an admission refusal:
 * {@code GET /metrics} passes {@code promtool check metrics} and its figures match what happened;
 * {@code GET /v1/admin/stats} and {@code GET /v1/admin/messages} answer operators with metadata only.
 */
class OperatorViewEndToEndTest {
    private static final Path GUIDE = Path.of("..", "docs", "scheduled-messages.md");
    private static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "buzz-scheduled-delivery.json");

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @TempDir
    static Path dataDir;

    private static OperatorViewStack stack;

    @BeforeAll
    static void populate() throws Exception {
        stack = OperatorViewStack.start(db, dataDir, Map.of()).populate();
        assertThat(stack.refusedCreate().status()).isEqualTo(422);
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void metrics_afterDeliveriesAndRefusals_passPromtoolCheckMetrics() throws Exception {
        String metrics = stack.metrics();

        Process promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        try (OutputStream in = promtool.getOutputStream()) {
            in.write(metrics.getBytes(StandardCharsets.UTF_8));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        promtool.getInputStream().transferTo(out);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(out.toString(StandardCharsets.UTF_8)).as("promtool's findings").isEmpty();
        assertThat(promtool.exitValue()).isZero();
        assertThat(metrics).contains("# HELP buzz_delivery_lateness_seconds ", "# TYPE buzz_http_server_requests_seconds histogram",
                "jvm_memory_used_bytes{", "hikaricp_connections{", "process_cpu_usage", "buzz_build_info{version=\"");
    }

    @Test
    void metrics_afterDeliveries_countEachOutcomeAndLateness() {
        String metrics = stack.metrics();

        assertThat(sample(metrics, "buzz_delivery_lateness_seconds_count")).isEqualTo(OperatorViewStack.PUBLISHED);
        assertThat(sample(metrics, "buzz_delivery_lateness_seconds_bucket{le=\"+Inf\"}"))
                .isEqualTo(OperatorViewStack.PUBLISHED);
        assertThat(sample(metrics, "buzz_delivery_outcomes_total{outcome=\"published\",relay=\"ok\"}"))
                .isEqualTo(OperatorViewStack.PUBLISHED);
        assertThat(sample(metrics, "buzz_delivery_outcomes_total{outcome=\"rejected\",relay=\"restricted\"}"))
                .isEqualTo(1);
        assertThat(sample(metrics, "buzz_relay_events_sent_total")).as("one frame each, the refused one too")
                .isEqualTo(OperatorViewStack.PUBLISHED + 1);
        assertThat(sample(metrics, "buzz_delivery_claims_total")).isEqualTo(OperatorViewStack.PUBLISHED + 1);
        assertThat(sample(metrics, "buzz_messages{state=\"published\"}")).isEqualTo(OperatorViewStack.PUBLISHED);
        assertThat(sample(metrics, "buzz_messages{state=\"failed\"}")).isEqualTo(1);
        assertThat(sample(metrics, "buzz_messages{state=\"scheduled\"}")).isEqualTo(1);
        assertThat(sample(metrics, "buzz_messages{state=\"cancelled\"}")).isEqualTo(1);
        assertThat(sample(metrics, "buzz_http_refusals_total{code=\"time_in_past\"}")).isEqualTo(1);
        assertThat(sample(metrics, "buzz_relay_connected")).isEqualTo(1);
        assertThat(sample(metrics, "buzz_due_listener_active")).isEqualTo(1);
        assertThat(sample(metrics, "buzz_reservations_overdue")).isZero();
        assertThat(sample(metrics, "buzz_oldest_overdue_due_timestamp_seconds")).isNaN();
        assertThat(sample(metrics,
                "buzz_http_server_requests_seconds_count{method=\"POST\",route=\"/v1/scheduled-messages\",status=\"201\"}"))
                .isEqualTo(OperatorViewStack.PUBLISHED + 3);
    }

    @Test
    void metrics_vocabulary_noMaxGaugeBesideAHistogramNoDuplicateCountsAndEveryNameInTheGuidesTable()
            throws Exception {
        String metrics = stack.metrics();
        Set<String> families = families(metrics);
        Set<String> documented = documentedMetrics();

        for (String line : metrics.split("\n")) {
            if (line.startsWith("# TYPE ") && line.endsWith(" histogram")) {
                String histogram = line.split(" ")[2];
                assertThat(families).as("no _max gauge beside " + histogram).doesNotContain(histogram + "_max");
            }
        }
        assertThat(families).as("counts no longer served twice or under two meanings of sent").doesNotContain(
                "buzz_delivery_sent_total", "buzz_delivery_published_total", "buzz_delivery_rejected_total",
                "buzz_delivery_retried_total", "buzz_relay_not_sent_total", "buzz_relay_found_total",
                "buzz_relay_too_large_total");
        assertThat(families).as("a gauge of its own, not a histogram's").contains("hikaricp_connections_max");
        Set<String> served = new TreeSet<>(families);
        served.removeIf(name -> !name.startsWith("buzz_"));
        assertThat(documented).as("the guide's metrics table (docs/scheduled-messages.md)").containsAll(served);
        Set<String> notServedHere = new TreeSet<>(documented);
        notServedHere.removeAll(served);
        assertThat(notServedHere).as("documented but not served by this configuration (policy relay)")
                .containsExactly("buzz_nip29_in_sync");
    }

    @Test
    void grafanaDashboard_everyQuery_isValidPromqlNamingServedMetrics() throws Exception {
        String metrics = stack.metrics();
        Set<String> samples = sampleNames(metrics);
        JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
        List<String> queries = new ArrayList<>();
        dashboard.get("panels").forEach(panel -> panel.get("targets").forEach(target ->
                queries.add(target.get("expr").asText())));

        assertThat(queries).hasSizeGreaterThan(10);
        Pattern metric = Pattern.compile("\\b(buzz_[a-z0-9_]+|hikaricp_[a-z0-9_]+|jvm_[a-z0-9_]+|process_[a-z0-9_]+)\\b");
        for (String query : queries) {
            Matcher names = metric.matcher(query);
            List<String> named = new ArrayList<>();
            while (names.find()) {
                named.add(names.group(1));
            }
            assertThat(named).as("metrics in " + query).isNotEmpty();
            assertThat(samples).as(query).containsAll(named);
        }
        // promtool parses every query as a recording rule's expression.
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (int i = 0; i < queries.size(); i++) {
            rules.append("      - record: dashboard:query").append(i).append("\n        expr: '")
                    .append(queries.get(i).replace("'", "''")).append("'\n");
        }
        Path file = Files.createTempFile(dataDir, "dashboard-rules", ".yml");
        Files.writeString(file, rules);
        Process promtool = new ProcessBuilder("promtool", "check", "rules", file.toString())
                .redirectErrorStream(true).start();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(promtool.exitValue()).as(output).isZero();
        assertThat(output).contains("SUCCESS: " + queries.size() + " rules found");
    }

    @Test
    void stats_operator_answerCountsLatenessThroughputAndTheRelaysWords() {
        SignedClient.Reply reply = stack.client.send(OPERATOR, "GET", "/v1/admin/stats", null);

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        JsonNode stats = reply.json();
        assertThat(stats.get("counts").toString()).isEqualTo(
                "{\"scheduled\":1,\"claimed\":0,\"sending\":0,\"published\":3,\"cancelled\":1,\"failed\":1}");
        assertThat(stats.get("overdue").asLong()).isZero();
        assertThat(stats.get("held_before").isNull()).isTrue();
        assertThat(stats.get("next_due").asLong()).isGreaterThan(stats.get("now").asLong());
        assertThat(stats.get("lateness").get("published").asLong()).isEqualTo(OperatorViewStack.PUBLISHED);
        assertThat(stats.get("lateness").get("p50").asDouble()).isBetween(0.0, 30.0);
        assertThat(stats.get("lateness").get("max").asDouble())
                .isGreaterThanOrEqualTo(stats.get("lateness").get("p99").asDouble());
        assertThat(stats.get("throughput").get("published_last_hour").asLong()).isEqualTo(OperatorViewStack.PUBLISHED);
        assertThat(stats.get("throughput").get("failed_last_hour").asLong()).isEqualTo(1);
        long perMinute = 0;
        for (JsonNode minute : stats.get("throughput").get("per_minute")) {
            perMinute += minute.get("published").asLong();
        }
        assertThat(perMinute).isEqualTo(OperatorViewStack.PUBLISHED);
        JsonNode failure = stats.get("recent_failures").get(0);
        assertThat(failure.get("id").asText()).isEqualTo(stack.failed);
        assertThat(failure.get("reason").asText()).isEqualTo("relay_rejected");
        assertThat(failure.get("detail").asText()).isEqualTo(OperatorViewStack.REFUSAL);
        assertThat(failure.get("owner").asText()).isEqualTo(BOB.publicKey().hex());
        assertThat(stats.get("links").get("relay_connected").asBoolean()).isTrue();
        assertThat(stats.get("links").get("listening").asBoolean()).isTrue();
        assertThat(stats.get("links").get("nip29_in_sync").isNull()).isTrue();
        assertThat(reply.text()).doesNotContain(SECRET_CONTENT);
    }

    /** Metric families named by {@code # TYPE} lines (counters with their {@code _total}). */
    private static Set<String> families(String metrics) {
        Set<String> names = new TreeSet<>();
        for (String line : metrics.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] words = line.split(" ");
                names.add(words[3].equals("counter") && !words[2].endsWith("_total") ? words[2] + "_total" : words[2]);
            }
        }
        return names;
    }

    /** Every sample's name ({@code _bucket}, {@code _count}, {@code _sum} included). */
    private static Set<String> sampleNames(String metrics) {
        Set<String> names = new TreeSet<>();
        for (String line : metrics.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /** The first column of the guide's metrics vocabulary table: every {@code buzz_} name in backquotes there. */
    private static Set<String> documentedMetrics() throws Exception {
        String guide = Files.readString(GUIDE);
        int start = guide.indexOf("| metric | type |");
        assertThat(start).as("the metrics vocabulary table in " + GUIDE).isPositive();
        Set<String> names = new TreeSet<>();
        for (String line : guide.substring(start).lines().skip(2).takeWhile(line -> line.startsWith("|")).toList()) {
            Matcher name = Pattern.compile("^\\| `(buzz_[a-z0-9_]+)`").matcher(line);
            assertThat(name.find()).as("a metric name first in " + line).isTrue();
            names.add(name.group(1));
        }
        return names;
    }

    @Test
    void messages_operator_listEveryOwnersMetadataAndNeverTheContent() {
        SignedClient.Reply all = stack.client.send(OPERATOR, "GET", "/v1/admin/messages", null);

        assertThat(all.status()).as(all.text()).isEqualTo(200);
        assertThat(all.json().get("items")).hasSize(6);
        assertThat(all.text()).doesNotContain(SECRET_CONTENT).doesNotContain("\"event\"").doesNotContain("content");
        List<String> owners = new ArrayList<>();
        all.json().get("items").forEach(item -> owners.add(item.get("owner").asText()));
        assertThat(owners).contains(ALICE.publicKey().hex(), BOB.publicKey().hex());
        JsonNode failed = stack.client.send(OPERATOR, "GET", "/v1/admin/messages?state=failed", null).json();
        assertThat(failed.get("items")).hasSize(1);
        assertThat(failed.get("items").get(0).get("last_error").asText()).isEqualTo(OperatorViewStack.REFUSAL);
        assertThat(failed.get("items").get(0).get("reason").asText()).isEqualTo("relay_rejected");
    }

    @Test
    void messages_filtersAndCursor_walkOneOwnersChannelPageByPage() {
        String query = "/v1/admin/messages?owner=" + ALICE.publicKey().hex() + "&channel=general&limit=2";
        SignedClient.Reply first = stack.client.send(OPERATOR, "GET", query, null);
        String cursor = first.json().get("next_cursor").asText();
        SignedClient.Reply second = stack.client.send(OPERATOR, "GET", query + "&cursor=" + cursor, null);

        List<String> ids = new ArrayList<>();
        first.json().get("items").forEach(item -> ids.add(item.get("id").asText()));
        second.json().get("items").forEach(item -> ids.add(item.get("id").asText()));
        assertThat(ids).containsExactlyInAnyOrderElementsOf(stack.published);
        assertThat(second.json().get("next_cursor").isNull()).isTrue();
        JsonNode later = stack.client.send(OPERATOR, "GET", "/v1/admin/messages?channel=later&state=scheduled,cancelled",
                null).json();
        assertThat(later.get("items")).hasSize(2);
    }

    @Test
    void adminReads_nonOperatorOrBadInput_areRefusedWithTheirCode() {
        SignedClient.Reply owner = stack.client.send(ALICE, "GET", "/v1/admin/stats", null);
        SignedClient.Reply anonymous = stack.client.send(null, "GET", "/v1/admin/messages", null);
        SignedClient.Reply badState = stack.client.send(OPERATOR, "GET", "/v1/admin/messages?state=lost", null);
        SignedClient.Reply badOwner = stack.client.send(OPERATOR, "GET", "/v1/admin/messages?owner=ALICE", null);
        SignedClient.Reply badCursor = stack.client.send(OPERATOR, "GET", "/v1/admin/messages?cursor=abc", null);

        assertThat(owner.status()).isEqualTo(403);
        assertThat(owner.error()).isEqualTo("forbidden");
        assertThat(anonymous.status()).isEqualTo(401);
        assertThat(List.of(badState.status(), badOwner.status(), badCursor.status())).containsOnly(400);
        assertThat(List.of(badState.error(), badOwner.error(), badCursor.error())).containsOnly("invalid_request");
    }
}

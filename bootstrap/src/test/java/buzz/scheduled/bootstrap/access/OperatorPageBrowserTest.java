package buzz.scheduled.bootstrap.access;

import static buzz.scheduled.bootstrap.access.OperatorViewStack.ALICE;
import static buzz.scheduled.bootstrap.access.OperatorViewStack.BOB;
import static buzz.scheduled.bootstrap.access.OperatorViewStack.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.logging.LogSetup;
import buzz.scheduled.domain.nostr.Nip19;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The operator console in a real headless Chromium (the system's, driven by playwright-core from
 * {@code src/test/browser}), signing with NIP-98 through a test {@code window.nostr} that uses nostr-tools'
 * {@code finalizeEvent}, against a real sidecar, PostgreSQL and the Node relay (which refuses Bob's events until the
 * test "fixes" it, and answers Carol's first try {@code error:}, a transient refusal). The harness clicks what an
 * operator clicks: the failed tile, the failed message's detail with the relay's words, requeue after the fix until
 * it is published, cancel of a pending message, the due-time and npub filters, the order, a copy button; then the
 * page at 375 px and with a key that is not an operator's. Leaves screenshots in {@code target/}
 * (docs/operator-page.png and docs/operator-console-375.png are copies of them).
 */
class OperatorPageBrowserTest {
    private static final Path HARNESS = Path.of("src", "test", "browser");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecretKey CAROL = new SecretKey("c3".repeat(32));
    private static final DateTimeFormatter LOCAL_INPUT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @TempDir
    static Path dataDir;

    private static final ListAppender<ILoggingEvent> OPERATOR_LOG = new ListAppender<>();
    private static OperatorViewStack stack;
    private static JsonNode shown;
    private static JsonNode statsBefore;
    private static final Path WIDE = Path.of("target", "operator-page.png").toAbsolutePath();
    private static final Path NARROW = Path.of("target", "operator-console-375.png").toAbsolutePath();

    @BeforeAll
    static void clickThroughTheConsole() throws Exception {
        // Logging as serve sets it up (Main): java.util.logging and System.Logger reach Logback, whatever ran before
        // in this JVM.
        LogSetup.apply(SidecarConfig.LogLevel.INFO, SidecarConfig.LogFormat.TEXT);
        OPERATOR_LOG.start();
        ((Logger) LoggerFactory.getLogger("buzz.operator")).addAppender(OPERATOR_LOG);
        Path restricted = dataDir.resolve("restricted-pubkeys");
        Files.writeString(restricted, BOB.publicKey().hex());
        stack = OperatorViewStack.start(db, dataDir, Map.of(), Map.of(
                "TEST_RELAY_RESTRICTED_PUBKEYS_FILE", restricted.toString(),
                "TEST_RELAY_RETRY_ONCE_PUBKEYS", CAROL.publicKey().hex())).populate();
        stack.delivered(CAROL, "retried once", "published");
        statsBefore = operator("GET", "/v1/admin/stats").json();
        long pendingDue = operator("GET", "/v1/admin/messages/" + stack.pending).json().get("due_at").asLong();
        installHarness();
        ProcessBuilder node = new ProcessBuilder("node", "operator-page.mjs").directory(HARNESS.toFile());
        Map<String, String> env = node.environment();
        env.put("ADMIN_URL", "http://127.0.0.1:" + stack.sidecar.httpPort() + "/admin");
        env.put("OPERATOR_SECRET", OPERATOR.hex());
        env.put("STRANGER_SECRET", ALICE.hex());
        env.put("FAILED_ID", stack.failed);
        env.put("PENDING_ID", stack.pending);
        env.put("RESTRICTED_FILE", restricted.toString());
        env.put("OWNER_NPUB", Nip19.npub(ALICE.publicKey()));
        // The pending message is due in an hour, the cancelled one in two: this range holds exactly those two.
        env.put("DUE_FROM", LOCAL_INPUT.format(Instant.ofEpochSecond(pendingDue - 600)));
        env.put("DUE_BEFORE", LOCAL_INPUT.format(Instant.ofEpochSecond(pendingDue + 3 * 3600)));
        env.put("SCREENSHOT", WIDE.toString());
        env.put("SCREENSHOT_NARROW", NARROW.toString());
        String output = run(node, 240);
        shown = JSON.readTree(output.lines().filter(line -> line.startsWith("{")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("the harness printed no result:\n" + output)));
    }

    @AfterAll
    static void stop() {
        ((Logger) LoggerFactory.getLogger("buzz.operator")).detachAppender(OPERATOR_LOG);
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void firstLoad_beforeTheFiguresArrive_showsLoadingNotEmptyData() {
        JsonNode loading = shown.get("operator").get("whileLoading");

        assertThat(loading.get("failures").asText()).isEqualTo("loading…");
        assertThat(loading.get("published").asText()).isEqualTo("…");
        assertThat(loading.get("chart").asText().strip()).isEqualTo("loading…");
        assertThat(loading.get("loaded").isNull()).isTrue();
    }

    @Test
    void loaded_countsLastHourRetriesChartAxesAndTheSignedInKey_matchTheApi() {
        JsonNode operator = shown.get("operator");

        assertThat(operator.get("loaded").asText()).isEqualTo("stats");
        assertThat(operator.get("counts")).isEqualTo(statsBefore.get("counts"));
        assertThat(operator.get("counts").get("failed").asInt()).isEqualTo(1);
        assertThat(operator.get("retriedLastHour").asLong()).as("Carol's first try was answered error: and retried")
                .isEqualTo(statsBefore.get("throughput").get("retried_last_hour").asLong()).isEqualTo(1);
        assertThat(operator.get("publishedLastHour").asLong())
                .isEqualTo(statsBefore.get("throughput").get("published_last_hour").asLong());
        assertThat(operator.get("whoami").asText()).contains(Nip19.npub(OPERATOR.publicKey()).substring(0, 12))
                .contains("operator");
        assertThat(operator.get("chartBars").asInt()).isPositive();
        assertThat(texts(operator.get("xTicks"))).hasSize(5).allMatch(label -> label.matches("\\d\\d:\\d\\d"));
        assertThat(texts(operator.get("yTicks"))).hasSize(3).allMatch(label -> label.endsWith(" s"))
                .startsWith("0.000 s");
        assertThat(operator.get("failures")).singleElement().satisfies(row -> assertThat(row.get("text").asText())
                .contains("relay_rejected").contains(OperatorViewStack.REFUSAL).contains(stack.failed));
    }

    @Test
    void failedTile_listsTheFailedMessage_andItsDetailShowsTheRelaysWordsWithoutContent() {
        JsonNode operator = shown.get("operator");
        JsonNode list = operator.get("failedList");
        JsonNode detail = operator.get("failedDetail");

        assertThat(list.get("stateFilter").asText()).isEqualTo("failed");
        assertThat(list.get("rows")).singleElement().satisfies(row -> {
            assertThat(row.get("id").asText()).isEqualTo(stack.failed);
            assertThat(row.get("state").asText()).isEqualTo("failed");
        });
        assertThat(list.get("matched").asText()).isEqualTo("1 matching message, 1 shown");
        assertThat(detail.get("state").asText()).isEqualTo("failed (relay_rejected)");
        assertThat(detail.get("attempts")).singleElement().satisfies(attempt -> assertThat(attempt.get("text")
                .asText()).contains("failed").contains("relay_rejected").contains(OperatorViewStack.REFUSAL));
        assertThat(texts(detail.get("buttons"))).containsExactly("requeue");
        assertThat(detail.get("text").asText()).doesNotContain(OperatorViewStack.SECRET_CONTENT);
    }

    @Test
    void requeue_afterTheRelayIsFixed_publishesTheOwnersEventAndTheListShowsNoOldError() {
        JsonNode operator = shown.get("operator");
        JsonNode requeued = operator.get("requeued");

        assertThat(operator.get("afterRequeue").asText()).as("due again at once: the dispatcher may have it already")
                .isIn("scheduled", "sending", "published");
        assertThat(requeued.get("state").asText()).isEqualTo("published");
        assertThat(requeued.get("attempts")).hasSize(2);
        assertThat(requeued.get("attempts").get(0).get("text").asText()).contains(OperatorViewStack.REFUSAL);
        assertThat(requeued.get("attempts").get(1).get("text").asText()).contains("published");
        assertThat(requeued.get("buttons")).isEmpty();
        JsonNode item = operator("GET", "/v1/admin/messages/" + stack.failed).json();
        assertThat(item.get("state").asText()).isEqualTo("published");
        assertThat(stack.relay.event(item.get("event_id").asText())).as("Bob's own signed event at the relay")
                .hasValueSatisfying(event -> assertThat(event).contains(BOB.publicKey().hex()));
        assertThat(item.get("last_error").asText()).as("the API keeps the words").isEqualTo(OperatorViewStack.REFUSAL);
        JsonNode row = find(operator.get("publishedList"), stack.failed);
        assertThat(cell(row, "last error")).as("a published row shows no old error").isEmpty();
    }

    @Test
    void cancel_ofAPendingMessage_fromItsDetail_cancelsIt() {
        JsonNode operator = shown.get("operator");

        assertThat(ids(operator.get("scheduledList"))).contains(stack.pending);
        assertThat(operator.get("cancelled").get("state").asText()).isEqualTo("cancelled");
        assertThat(operator.get("cancelled").get("buttons")).isEmpty();
        assertThat(operator("GET", "/v1/admin/messages/" + stack.pending).json().get("state").asText())
                .isEqualTo("cancelled");
        assertThat(texts(operator.get("dialogs"))).hasSize(2)
                .anySatisfy(text -> assertThat(text).startsWith("Requeue message " + stack.failed))
                .anySatisfy(text -> assertThat(text).startsWith("Cancel message " + stack.pending));
    }

    @Test
    void actions_areLoggedOnceEachWithTheOperatorsKey() {
        List<String> lines = OPERATOR_LOG.list.stream().map(ILoggingEvent::getFormattedMessage).toList();

        assertThat(lines).hasSize(2);
        assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("operator " + OPERATOR.publicKey().hex()
                + " requeued " + stack.failed + " (owner " + BOB.publicKey().hex() + ", channel general"));
        assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("operator " + OPERATOR.publicKey().hex()
                + " cancelled " + stack.pending + " (owner " + ALICE.publicKey().hex() + ", channel later"));
        assertThat(String.join("\n", lines)).doesNotContain(OperatorViewStack.SECRET_CONTENT);
    }

    @Test
    void filters_dueRangeNpubAndOrder_listWhatTheyMatchWithTheirCount() {
        JsonNode operator = shown.get("operator");

        assertThat(ids(operator.get("timeRange").get("rows"))).containsExactly(stack.pending, stack.cancelled);
        assertThat(operator.get("timeRange").get("matched").asText()).isEqualTo("2");
        JsonNode alices = operator("GET", "/v1/admin/messages?owner=" + ALICE.publicKey().hex()).json();
        List<String> expected = ids(alices.get("items"), "id");
        assertThat(ids(operator.get("byNpub").get("rows"))).containsExactlyElementsOf(expected);
        assertThat(operator.get("byNpub").get("matched").asText()).isEqualTo(Integer.toString(expected.size()));
        List<String> reversed = new ArrayList<>(expected);
        java.util.Collections.reverse(reversed);
        assertThat(ids(operator.get("byNpubLatestFirst"))).containsExactlyElementsOf(reversed);
        assertThat(operator.get("copied").asText()).isEqualTo(reversed.getFirst());
    }

    @Test
    void narrowScreen_375px_hasNoSidewaysOverflow() throws Exception {
        JsonNode narrow = shown.get("narrow");

        assertThat(narrow.get("viewport").asInt()).isEqualTo(375);
        assertThat(narrow.get("scrollWidth").asInt()).isLessThanOrEqualTo(375);
        assertThat(narrow.get("widest").asDouble()).isLessThanOrEqualTo(375.5);
        assertThat(Files.size(NARROW)).isGreaterThan(10_000);
        assertThat(Files.size(WIDE)).isGreaterThan(10_000);
    }

    @Test
    void everyCall_isSignedForThePublicBaseUrl_andNothingIsStored() {
        JsonNode operator = shown.get("operator");

        assertThat(operator.get("signedUrls")).isNotEmpty();
        operator.get("signedUrls").forEach(url -> assertThat(url.asText())
                .startsWith("http://127.0.0.1:" + stack.sidecar.httpPort() + "/v1/admin/"));
        assertThat(operator.get("localStorage").asInt()).isZero();
        assertThat(operator.get("cookies").asInt()).isZero();
    }

    @Test
    void otherKey_pageShowsTheRefusalAndNoData() {
        JsonNode stranger = shown.get("stranger");

        assertThat(stranger.get("loaded").asText()).isEqualTo("error");
        assertThat(stranger.get("bannerStatus").asText()).isEqualTo("403");
        assertThat(stranger.get("banner").asText()).contains("forbidden")
                .contains(ALICE.publicKey().hex() + " is not an operator");
        assertThat(stranger.get("whoami").asText()).contains("not an operator");
        assertThat(stranger.get("failures").asText()).startsWith("not loaded").doesNotContain("none");
    }

    private static SignedClient.Reply operator(String method, String path) {
        SignedClient.Reply reply = stack.client.send(OPERATOR, method, path, null);
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        return reply;
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(node -> texts.add(node.asText()));
        return texts;
    }

    private static List<String> ids(JsonNode rows) {
        return ids(rows, "id");
    }

    private static List<String> ids(JsonNode rows, String field) {
        List<String> ids = new ArrayList<>();
        rows.forEach(row -> ids.add(row.get(field).asText()));
        Set<String> distinct = new HashSet<>(ids);
        assertThat(distinct).as("no row twice").hasSameSizeAs(ids);
        return ids;
    }

    private static JsonNode find(JsonNode rows, String id) {
        for (JsonNode row : rows) {
            if (row.get("id").asText().equals(id)) {
                return row;
            }
        }
        throw new AssertionError("no row " + id + " in " + rows);
    }

    private static String cell(JsonNode row, String label) {
        for (JsonNode cell : row.get("cells")) {
            if (cell.get("label").asText().equals(label)) {
                return cell.get("text").asText();
            }
        }
        throw new AssertionError("no cell " + label + " in " + row);
    }

    /** {@code npm ci} for the harness when its packages are missing (the build installs them up front). */
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

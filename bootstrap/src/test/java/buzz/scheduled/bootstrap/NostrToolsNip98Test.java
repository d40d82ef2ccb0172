package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * NIP-98 from a real client: nostr-tools' own {@code nip98.getToken} (run by Node, events signed with its
 * {@code finalizeEvent}) against the sidecar's real HTTP API on real PostgreSQL, with
 * {@code PUBLIC_BASE_URL=https://Sched.Example.COM:443} and the {@code u} tag the client takes from
 * {@code new URL(...).href} ({@code https://sched.example.com/...}).
 */
class NostrToolsNip98Test {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    @TempDir
    static Path dataDir;

    /** Alice of the conformance vectors ({@code nostr-keys.json}). */
    private static final String ALICE_SECRET = "bfc8054fd72c3a3d2815e4a0b377c8b5bba4978057cd98580522d3ab82ebe292";
    private static final String BASE = "https://Sched.Example.COM:443";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger MESSAGES = new AtomicInteger();

    private static Sidecar sidecar;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        sidecar = new Sidecar();
        sidecar.start(SidecarConfig.fromEnvironment(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(ServeProcesses.freePort()),
                "BUZZ_SCHEDULED_MESSAGES", "on", "PUBLIC_BASE_URL", BASE)));
    }

    @AfterAll
    static void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    record Reply(int status, JsonNode json) {
        String error() {
            return json.path("error").asText();
        }

        String message() {
            return json.path("message").asText();
        }
    }

    /** The request nostr-tools signs: {@code path} under the mixed-case base, {@code method} as the app writes it. */
    private static Map<String, Object> request(String path, String method) {
        Map<String, Object> request = new HashMap<>();
        request.put("secret_key", ALICE_SECRET);
        request.put("url", BASE + path);
        request.put("method", method);
        return request;
    }

    /** The same, carrying a new kind-9 message an hour ahead (signed by nostr-tools) as the body. */
    private static Map<String, Object> create() {
        Map<String, Object> request = request("/v1/scheduled-messages", "POST");
        request.put("event", Map.of("kind", 9, "created_at", Instant.now().plusSeconds(3600).getEpochSecond(),
                "tags", List.of(List.of("h", "general")), "content", "standup #" + MESSAGES.incrementAndGet()));
        return request;
    }

    private static Reply send(String method, String pathAndQuery, String body, String authorization)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sidecar.httpPort()
                        + pathAndQuery))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", authorization)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(), JSON.readTree(response.body()));
    }

    private static long storedWithEvent(String body) throws IOException {
        String eventId = JSON.readTree(body).get("event").get("id").asText();
        return DATABASE.queryLong("SELECT count(*) FROM scheduled_message WHERE event_id = ?", eventId);
    }

    @Test
    void create_sameRequestSignedTwiceInOneSecond_bothPassAndOnlyTheRepeatedHeaderIsRefused() throws Exception {
        Map<String, Object> request = create();
        request.put("count", 2);
        NostrToolsClient.Tokens tokens = NostrToolsClient.tokens(request);

        Reply first = send("POST", "/v1/scheduled-messages", tokens.body(), tokens.headers().get(0));
        Reply second = send("POST", "/v1/scheduled-messages", tokens.body(), tokens.headers().get(1));
        Reply repeated = send("POST", "/v1/scheduled-messages", tokens.body(), tokens.headers().get(0));

        assertThat(tokens.event(1).get("id")).as("same second, same event id").isEqualTo(tokens.event(0).get("id"));
        assertThat(tokens.event(1).get("sig")).as("a fresh signature").isNotEqualTo(tokens.event(0).get("sig"));
        assertThat(first.status()).as(first.json().toString()).isEqualTo(201);
        assertThat(second.status()).as("the retry is the same create: " + second.json()).isEqualTo(200);
        assertThat(second.json().get("id")).isEqualTo(first.json().get("id"));
        assertThat(repeated.status()).isEqualTo(401);
        assertThat(repeated.error()).isEqualTo("unauthorized");
        assertThat(repeated.message()).endsWith("with this signature was already used (replay)");
        assertThat(storedWithEvent(tokens.body())).isEqualTo(1);
    }

    @Test
    void create_lowercaseMethodTagAndUppercasePayloadHex_isCreated() throws Exception {
        Map<String, Object> request = create();
        request.put("method", "post"); // nostr-tools' own example
        request.put("uppercase_payload", true);
        NostrToolsClient.Tokens tokens = NostrToolsClient.tokens(request);

        Reply created = send("POST", "/v1/scheduled-messages", tokens.body(), tokens.headers().get(0));

        assertThat(tokens.event(0).get("tags").toString()).contains("[\"method\",\"post\"]")
                .containsPattern("\\[\"payload\",\"[0-9A-F]{64}\"]");
        assertThat(created.status()).as(created.json().toString()).isEqualTo(201);
        assertThat(storedWithEvent(tokens.body())).isEqualTo(1);
    }

    @Test
    void list_uFromNewUrlHrefAgainstAnUppercaseBaseWithTheDefaultPort_isAuthenticated() throws Exception {
        NostrToolsClient.Tokens tokens = NostrToolsClient.tokens(request("/v1/scheduled-messages?limit=5", "GET"));

        Reply listed = send("GET", "/v1/scheduled-messages?limit=5", null, tokens.headers().get(0));

        assertThat(tokens.u()).isEqualTo("https://sched.example.com/v1/scheduled-messages?limit=5");
        assertThat(listed.status()).as(listed.json().toString()).isEqualTo(200);
        assertThat(listed.json().has("items")).isTrue();
    }

    @Test
    void request_wrongPathWrongQueryStaleOrAnotherBody_isRefused401SayingWhichCheckFailed() throws Exception {
        String otherPath = NostrToolsClient.tokens(request("/v1/scheduled-messages/elsewhere", "GET")).headers().get(0);
        String otherQuery = NostrToolsClient.tokens(request("/v1/scheduled-messages?limit=5", "GET")).headers().get(0);
        Map<String, Object> skewed = request("/v1/scheduled-messages", "GET");
        skewed.put("created_at_shift", -120);
        String stale = NostrToolsClient.tokens(skewed).headers().get(0);
        NostrToolsClient.Tokens signedFor = NostrToolsClient.tokens(create());
        String anotherBody = NostrToolsClient.tokens(create()).body();

        Reply wrongPath = send("GET", "/v1/scheduled-messages", null, otherPath);
        Reply wrongQuery = send("GET", "/v1/scheduled-messages?limit=6", null, otherQuery);
        Reply tooOld = send("GET", "/v1/scheduled-messages", null, stale);
        Reply wrongBody = send("POST", "/v1/scheduled-messages", anotherBody, signedFor.headers().get(0));

        assertThat(List.of(wrongPath.status(), wrongQuery.status(), tooOld.status(), wrongBody.status()))
                .containsOnly(401);
        assertThat(wrongPath.message()).isEqualTo("NIP-98 authentication failed: Authorization u tag"
                + " \"https://sched.example.com/v1/scheduled-messages/elsewhere\" does not match the URL of this request under PUBLIC_BASE_URL"
                + " \"https://Sched.Example.COM:443/v1/scheduled-messages\"");
        assertThat(wrongQuery.message()).contains("\"https://sched.example.com/v1/scheduled-messages?limit=5\"")
                .contains("does not match the URL of this request under PUBLIC_BASE_URL \"https://Sched.Example.COM:443/v1/scheduled-messages?limit=6\"");
        // nostr-tools stamps created_at with Math.round, so it may be up to half a second ahead: 119 s is in range
        assertThat(tooOld.message())
                .containsPattern("Authorization event is too old: created_at is (119|1[2-9]\\d) s behind the server clock \\(limit 60 s\\)");
        assertThat(wrongBody.message())
                .endsWith("Authorization payload tag does not match the SHA-256 of the request body");
        assertThat(storedWithEvent(anotherBody)).isZero();
    }
}

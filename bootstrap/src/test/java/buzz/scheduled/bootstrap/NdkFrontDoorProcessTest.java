package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kind-5905 front door as an app uses it: a real NDK (3.0.3, bootstrap/src/test/ndk) calls its own
 * {@code dvmSchedule} (the request NIP-44 encrypted to the sidecar) through the project's Node relay, against a real
 * {@code serve} on PostgreSQL with {@code BUZZ_DVM=on}. The sidecar announces itself (NIP-89), answers {@code success}
 * with the message id, publishes the event at its time (never before), answers a kind-6905 result with the published
 * event id; a second message is cancelled by NDK's own kind-5 deletion of its request and never published; a request
 * over the pending limit gets {@code error} feedback with the API's code and the words the HTTP API gives.
 */
class NdkFrontDoorProcessTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @TempDir
    Path work;

    private final SecretKey author = SecretKey.generate(new SecureRandom());

    private JsonNode ndk(TestRelay relay, String op, Map<String, Object> fields) {
        Map<String, Object> request = new LinkedHashMap<>(fields);
        request.put("op", op);
        request.put("relay", relay.url().toString());
        request.put("secret_key", author.hex());
        return NostrToolsClient.run(NostrToolsClient.testFolder("ndk", "ndk-schedule.mjs"), "ndk-schedule.mjs",
                "@nostr-dev-kit/ndk", request);
    }

    private JsonNode schedule(TestRelay relay, String sidecar, long createdAt, String content) {
        return ndk(relay, "schedule", Map.of("dvm", sidecar, "channel", "general", "created_at", createdAt,
                "content", content, "wait_ms", 30_000));
    }

    private static JsonNode info(int port) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/info"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body());
        }
    }

    private static String state(String id) {
        return db.queryColumn("SELECT state FROM scheduled_message WHERE id = ?", UUID.fromString(id)).get(0);
    }

    @Test
    void ndkDvmSchedule_throughTheRelay_isAnsweredScheduledPublishedOnTimeCancelledByDeletionAndLimited()
            throws Exception {
        db.truncateAllTables();
        try (TestRelay relay = TestRelay.start()) {
            int port = ServeProcesses.freePort();
            Path log = work.resolve("serve.log");
            Process serve = processes.start(Map.of("DATABASE_URL", db.jdbcUrl(), "BUZZ_DATA_DIR",
                    work.resolve("var").toString(), "HTTP_PORT", Integer.toString(port), "BUZZ_SCHEDULED_MESSAGES",
                    "on", "BUZZ_DVM", "on", "RELAY_URL", relay.url().toString(), "BUZZ_MAX_PENDING_PER_OWNER", "1"),
                    log);
            ServeProcesses.awaitHealthy(serve, port, log);
            JsonNode info = info(port);
            String sidecar = info.path("pubkey").asText();
            assertThat(info.path("supported_extensions").toString()).contains("buzz-nip90-5905-v1");
            assertThat(info.path("supported_nips").toString()).contains("90", "89", "44");
            List<String> announcements = Poll.until("the NIP-89 handler announcement", WAIT,
                    () -> relay.events("{\"kinds\":[31990],\"authors\":[\"" + sidecar + "\"]}"),
                    found -> !found.isEmpty());
            assertThat(JSON.readTree(announcements.get(0)).path("tags").toString()).contains("[\"k\",\"5905\"]");

            OwnerClient http = new OwnerClient(port, author);
            long dueA = Instant.now().getEpochSecond() + 20;
            try (LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"kinds\":[9],\"authors\":[\""
                    + author.publicKey().hex() + "\"]}")) {
                JsonNode a = schedule(relay, sidecar, dueA, "scheduled through NDK's dvmSchedule");
                JsonNode overLimit = schedule(relay, sidecar, dueA + 60, "one more than the pending limit");
                OwnerClient.Reply overLimitOverHttp = http.schedule(http.messageAt("general", "over HTTP",
                        dueA + 61));

                assertThat(a.path("feedback").path("kind").asInt()).as(a.toString()).isEqualTo(7000);
                assertThat(a.path("feedback").path("status").asText()).as(a.toString()).isEqualTo("success");
                String idA = a.path("feedback").path("schedule").asText();
                assertThat(UUID.fromString(idA).toString()).isEqualTo(idA);
                assertThat(a.path("feedback").path("info").asText()).contains(idA);
                assertThat(overLimitOverHttp.status()).isEqualTo(429);
                assertThat(overLimitOverHttp.json().path("error").asText()).isEqualTo("too_many_pending");
                assertThat(overLimit.path("error").asText()).as(overLimit.toString())
                        .isEqualTo("too_many_pending: " + overLimitOverHttp.json().path("message").asText());

                List<LiveEvents.Arrival> published = live.await(1, WAIT);
                assertThat(published.get(0).eventId()).isEqualTo(a.path("event_id").asText());
                assertThat(published.get(0).at()).as("never before its time")
                        .isAfterOrEqualTo(Instant.ofEpochSecond(dueA));
                JsonNode result = ndk(relay, "result", Map.of("dvm", sidecar, "request_id",
                        a.path("feedback").path("request_id").asText(), "wait_ms", 30_000));
                assertThat(result.path("pubkey").asText()).as(result.toString()).isEqualTo(sidecar);
                assertThat(result.path("content").asText()).isEqualTo(a.path("event_id").asText());

                long dueB = Instant.now().getEpochSecond() + 15;
                JsonNode b = schedule(relay, sidecar, dueB, "cancelled by deleting its request");
                assertThat(b.path("feedback").path("status").asText()).as(b.toString()).isEqualTo("success");
                String idB = b.path("feedback").path("schedule").asText();
                JsonNode deletion = ndk(relay, "delete", Map.of("request_id",
                        b.path("feedback").path("request_id").asText()));
                assertThat(deletion.path("tags").toString()).contains("[\"k\",\"5905\"]");
                try {
                    Poll.until("the deletion to cancel message " + idB, WAIT, () -> state(idB),
                            "cancelled"::equals);
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "\n" + ServeProcesses.output(log), e);
                }
                Poll.until("well past message B's due time", WAIT,
                        () -> Instant.now().isAfter(Instant.ofEpochSecond(dueB + 3)));

                assertThat(relay.event(b.path("event_id").asText())).isEmpty();
                assertThat(live.arrivals()).extracting(LiveEvents.Arrival::eventId)
                        .containsExactly(a.path("event_id").asText());
                assertThat(state(idA)).isEqualTo("published");
            }
        }
    }
}

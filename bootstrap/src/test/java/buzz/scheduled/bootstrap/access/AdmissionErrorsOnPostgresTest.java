package buzz.scheduled.bootstrap.access;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.bootstrap.Sidecar;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every error code and every status of the owner routes in docs/openapi.yaml, through the sidecar as {@code serve}
 * wires it: real PostgreSQL, real BIP-340 events, real NIP-98 headers, and the {@code http} access policy with a
 * local callback (so access refusals come from a policy, as in production). Each refusal also asserts that
 * nothing was stored: no message row and no revision row changed.
 */
class AdmissionErrorsOnPostgresTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final SecretKey ALICE = new SecretKey("a3".repeat(32));
    private static final SecretKey BOB = new SecretKey("b4".repeat(32));
    private static final int MAX_PENDING = 3;

    @TempDir
    static Path dataDir;

    private static HttpServer callback;
    private static Sidecar sidecar;
    private static SignedClient client;

    @BeforeAll
    static void serve() throws Exception {
        callback = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        callback.createContext("/access", exchange -> {
            String question;
            try (InputStream in = exchange.getRequestBody()) {
                question = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            String answer = question.contains("\"archived\"") ? "{\"allowed\":false,\"reason\":\"is_archived\"}"
                    : question.contains("\"private\"") ? "{\"allowed\":false,\"reason\":\"not_in_channel\"}"
                    : question.contains("\"locked\"") ? "{\"allowed\":false,\"reason\":\"restricted\"}"
                    : question.contains("\"vanished\"") ? "{\"allowed\":false,\"reason\":\"channel_not_found\"}"
                    : "{\"allowed\":true}";
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        callback.start();
        sidecar = start(true);
        client = new SignedClient(sidecar.httpPort(), URI.create("http://127.0.0.1:" + sidecar.httpPort()));
    }

    private static Sidecar start(boolean flag) throws Exception {
        int port = freePort();
        Map<String, String> environment = new HashMap<>(Map.of("DATABASE_URL", db.jdbcUrl(),
                "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(port),
                "BUZZ_SCHEDULED_MESSAGES", flag ? "on" : "off", "BUZZ_ACCESS_POLICY", "http",
                "BUZZ_ACCESS_URL", "http://127.0.0.1:" + callback.getAddress().getPort() + "/access",
                "RELAY_URL", "ws://127.0.0.1:" + freePort(), "BUZZ_MAX_PENDING_PER_OWNER", Integer.toString(MAX_PENDING)));
        // The channel-wide backstop as low as the per-owner count, so 30 authors fill a window; and room for the
        // many writes these tests make as the same owners (the write rate has its own tests).
        environment.put("BUZZ_CHANNEL_WINDOW_TOTAL", "30");
        environment.put("BUZZ_OWNER_WRITE_BURST", "10000");
        Sidecar started = new Sidecar();
        started.start(SidecarConfig.fromEnvironment(environment));
        return started;
    }

    @AfterAll
    static void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
        if (callback != null) {
            callback.stop(0);
        }
    }

    @Test
    void admission_everyRefusal_answersItsStatusAndCodeAndStoresNothing() {
        long in = Instant.now().plus(Duration.ofHours(2)).getEpochSecond();
        NostrEvent good = sign(ALICE, in, 9, List.of(List.of("h", "general")), "fine");
        NostrEvent tampered = new NostrEvent(good.id(), good.pubkey(), good.createdAt(), good.kind(), good.tags(),
                "changed after signing", good.sig());
        record Case(String name, SecretKey sender, String body, int status, String code) {
        }
        List<Case> cases = List.of(
                new Case("no authorization", null, envelope(good), 401, "unauthorized"),
                new Case("malformed body", ALICE, "{\"event\":", 400, "invalid_request"),
                new Case("duplicate key", ALICE, "{\"event\":" + NostrEventJson.write(good) + ",\"event\":{}}", 400,
                        "invalid_request"),
                new Case("id not the hash", ALICE, envelope(tampered), 400, "invalid_event"),
                new Case("someone else's event", BOB, envelope(good), 403, "pubkey_mismatch"),
                new Case("kind 7", ALICE, envelope(sign(ALICE, in, 7, List.of(List.of("h", "general")), "x")), 422,
                        "kind_not_allowed"),
                new Case("no h tag", ALICE, envelope(sign(ALICE, in, 9, List.of(), "x")), 422, "missing_channel"),
                new Case("content over 256 KiB", ALICE, envelope(sign(ALICE, in, 9, List.of(List.of("h", "general")),
                        "x".repeat(256 * 1024 + 1))), 413, "too_large"),
                new Case("expires at due", ALICE, envelope(sign(ALICE, in, 9, List.of(List.of("h", "general"),
                        List.of("expiration", Long.toString(in))), "x")), 422, "expires_before_due"),
                new Case("in the past", ALICE, envelope(sign(ALICE, Instant.now().getEpochSecond() - 10, 9,
                        List.of(List.of("h", "general")), "x")), 422, "time_in_past"),
                new Case("beyond the horizon", ALICE, envelope(sign(ALICE,
                        Instant.now().plus(Duration.ofDays(121)).getEpochSecond(), 9, List.of(List.of("h", "general")),
                        "x")), 422, "time_too_far"),
                new Case("deleted group", ALICE, envelope(channel("vanished", in)), 422, "channel_not_found"),
                new Case("archived group", ALICE, envelope(channel("archived", in)), 403, "is_archived"),
                new Case("not a member", ALICE, envelope(channel("private", in)), 403, "not_in_channel"),
                new Case("restricted", ALICE, envelope(channel("locked", in)), 403, "restricted"));

        for (Case c : cases) {
            long messages = messages();
            long revisions = revisions();

            SignedClient.Reply reply = client.send(c.sender(), "POST", "/v1/scheduled-messages", c.body());

            assertThat(reply.status()).as(c.name() + ": " + reply.text()).isEqualTo(c.status());
            assertThat(reply.error()).as(c.name()).isEqualTo(c.code());
            assertThat(reply.json().get("message").asText()).as(c.name()).isNotBlank();
            assertThat(messages()).as(c.name() + ": nothing stored").isEqualTo(messages);
            assertThat(revisions()).as(c.name() + ": nothing stored").isEqualTo(revisions);
        }
    }

    @Test
    void limits_pendingAndChannelWindowAndIdempotency_answerTheirCodesAndStoreNothing() {
        SecretKey owner = new SecretKey("c5".repeat(32));
        long due = Instant.now().plus(Duration.ofDays(3)).getEpochSecond() / 300 * 300 + 10;
        for (int i = 0; i < MAX_PENDING; i++) {
            assertThat(client.schedule(owner, sign(owner, due + 1000 * (i + 1), 9, List.of(List.of("h", "pending")),
                    "p" + i)).status()).isEqualTo(201);
        }
        assertRefused(owner, envelope(sign(owner, due + 9000, 9, List.of(List.of("h", "pending")), "over")),
                Map.of(), 429, "too_many_pending");

        for (int i = 0; i < 30; i++) {
            SecretKey author = new SecretKey(String.format("%064x", 0xd00 + i));
            assertThat(client.schedule(author, sign(author, due, 9, List.of(List.of("h", "busy")), "w" + i))
                    .status()).isEqualTo(201);
        }
        SecretKey late = new SecretKey(String.format("%064x", 0xe00));
        assertRefused(late, envelope(sign(late, due + 5, 9, List.of(List.of("h", "busy")), "31st")), Map.of(),
                429, "restricted_too_many");
        SecretKey busy = new SecretKey(String.format("%064x", 0xd00));
        assertRefused(busy, envelope(sign(busy, due + 6, 9, List.of(List.of("h", "busy")), "again")), Map.of(),
                429, "restricted_too_many");

        SecretKey keyed = new SecretKey(String.format("%064x", 0xf00));
        NostrEvent first = sign(keyed, due + 100_000, 9, List.of(List.of("h", "general")), "first");
        SignedClient.Reply created = client.send(keyed, "POST", "/v1/scheduled-messages", envelope(first),
                Map.of("Idempotency-Key", "order-42"));
        SignedClient.Reply replay = client.send(keyed, "POST", "/v1/scheduled-messages", envelope(first),
                Map.of("Idempotency-Key", "order-42"));
        assertThat(created.status()).isEqualTo(201);
        assertThat(replay.status()).isEqualTo(200);
        assertThat(replay.text()).isEqualTo(created.text());
        assertRefused(keyed, envelope(sign(keyed, due + 100_000, 9, List.of(List.of("h", "general")), "second")),
                Map.of("Idempotency-Key", "order-42"), 422, "idempotency_conflict");
    }

    @Test
    void ownerRoutes_everyStatus_onRealStorage() {
        long in = Instant.now().plus(Duration.ofHours(5)).getEpochSecond();
        SignedClient.Reply created = client.schedule(ALICE, sign(ALICE, in, 9, List.of(List.of("h", "general")), "r1"));
        assertThat(created.status()).isEqualTo(201);
        String id = created.json().get("id").asText();
        String path = "/v1/scheduled-messages/" + id;
        String edit = envelope(sign(ALICE, in + 60, 9, List.of(List.of("h", "general")), "r2"));

        assertThat(client.send(ALICE, "GET", path, null).status()).isEqualTo(200);
        assertThat(client.send(BOB, "GET", path, null).error()).isEqualTo("not_found");
        assertThat(client.send(ALICE, "GET", "/v1/scheduled-messages/00000000-0000-4000-8000-00000000dead", null)
                .status()).isEqualTo(404);
        assertRefused(ALICE, "PUT", path, edit, Map.of(), 428, "precondition_required");
        assertRefused(ALICE, "PUT", path, edit, Map.of("If-Match", "\"7\""), 412, "revision_conflict");
        assertThat(client.send(ALICE, "PUT", path, edit, Map.of("If-Match", "\"1\"")).status()).isEqualTo(200);
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message_revision WHERE message_id = ?::uuid", id))
                .isEqualTo(2);
        assertRefused(ALICE, "POST", path + "/send-now", null, Map.of(), 409, "resign_required");
        SignedClient.Reply now = client.send(ALICE, "POST", path + "/send-now",
                envelope(sign(ALICE, Instant.now().getEpochSecond(), 9, List.of(List.of("h", "general")), "now")));
        assertThat(now.status()).as(now.text()).isEqualTo(202);

        db.execute("UPDATE scheduled_message SET state = 'sending', fencing_token = nextval('fencing_token_seq'),"
                + " lease_until = now() + interval '1 hour' WHERE id = ?::uuid", id);
        assertRefused(ALICE, "DELETE", path, null, Map.of(), 409, "dispatching");
        db.execute("UPDATE scheduled_message SET state = 'published', fencing_token = NULL, lease_until = NULL,"
                + " finished_at = now() WHERE id = ?::uuid", id);
        assertRefused(ALICE, "DELETE", path, null, Map.of(), 409, "already_sent");

        String other = client.schedule(ALICE, sign(ALICE, in + 7, 9, List.of(List.of("h", "general")), "x"))
                .json().get("id").asText();
        assertThat(client.send(ALICE, "DELETE", "/v1/scheduled-messages/" + other, null).json().get("state").asText())
                .isEqualTo("cancelled");
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE id = ?::uuid AND event_json IS NULL",
                other)).as("the payload is gone at once").isEqualTo(1);
        assertRefused(ALICE, "PUT", "/v1/scheduled-messages/" + other,
                envelope(sign(ALICE, in + 9, 9, List.of(List.of("h", "general")), "y")), Map.of("If-Match", "\"1\""),
                409, "not_pending");
    }

    @Test
    void featureOff_ownerRoutesAnswerFeatureDisabledAndStoreNothing() throws Exception {
        try (Sidecar off = start(false)) {
            SignedClient offClient = new SignedClient(off.httpPort(), URI.create("http://127.0.0.1:" + off.httpPort()));
            long messages = messages();

            SignedClient.Reply reply = offClient.schedule(ALICE, sign(ALICE,
                    Instant.now().plus(Duration.ofHours(1)).getEpochSecond(), 9, List.of(List.of("h", "general")), "x"));

            assertThat(reply.status()).isEqualTo(404);
            assertThat(reply.error()).isEqualTo("feature_disabled");
            assertThat(messages()).isEqualTo(messages);
        }
    }

    private void assertRefused(SecretKey sender, String body, Map<String, String> headers, int status, String code) {
        assertRefused(sender, "POST", "/v1/scheduled-messages", body, headers, status, code);
    }

    private void assertRefused(SecretKey sender, String method, String path, String body, Map<String, String> headers,
                               int status, String code) {
        long messages = messages();
        long revisions = revisions();
        String before = String.join("|", db.queryColumn(
                "SELECT id || state || revision FROM scheduled_message ORDER BY id"));

        SignedClient.Reply reply = client.send(sender, method, path, body, headers);

        assertThat(reply.status()).as(method + " " + path + ": " + reply.text()).isEqualTo(status);
        assertThat(reply.error()).isEqualTo(code);
        assertThat(messages()).isEqualTo(messages);
        assertThat(revisions()).isEqualTo(revisions);
        assertThat(String.join("|", db.queryColumn("SELECT id || state || revision FROM scheduled_message ORDER BY id")))
                .as("no row changed").isEqualTo(before);
    }

    private static NostrEvent channel(String channel, long createdAt) {
        return sign(ALICE, createdAt, 9, List.of(List.of("h", channel)), "to " + channel);
    }

    private static NostrEvent sign(SecretKey author, long createdAt, int kind, List<List<String>> tags, String content) {
        return new Bip340Signer(author, new SecureRandom()).sign(createdAt, kind, tags, content);
    }

    private static String envelope(NostrEvent event) {
        return "{\"event\":" + NostrEventJson.write(event) + "}";
    }

    private static long messages() {
        return db.queryLong("SELECT count(*) FROM scheduled_message");
    }

    private static long revisions() {
        return db.queryLong("SELECT count(*) FROM scheduled_message_revision");
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}

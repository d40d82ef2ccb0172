package buzz.scheduled.bootstrap.access;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.bootstrap.Sidecar;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch create and the bulk cancel through the sidecar as {@code serve} wires it: real PostgreSQL, real BIP-340
 * events and NIP-98 headers, and the {@code http} access policy with a local callback. A batch mixing valid,
 * repeated, already stored, over-limit, forged, malformed and refused items is answered item by item in order with
 * exactly the valid ones stored; a header whose payload is not the body's hash, or that has none, stores nothing; a
 * bulk cancel by channel or due range touches only its owner's matching pending rows.
 */
class BatchOnPostgresTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final String BATCH = "/v1/scheduled-messages/batch";
    private static final String CANCEL = "/v1/scheduled-messages/cancel";
    private static final int MAX_PENDING = 6;

    @TempDir
    static Path dataDir;

    private static HttpServer callback;
    private static Sidecar sidecar;
    private static SignedClient client;

    @BeforeAll
    static void serve() throws Exception {
        callback = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        callback.createContext("/access", exchange -> {
            String question = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            byte[] body = (question.contains("\"private\"") ? "{\"allowed\":false,\"reason\":\"not_in_channel\"}"
                    : "{\"allowed\":true}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        callback.start();
        int port = freePort();
        sidecar = new Sidecar();
        sidecar.start(SidecarConfig.fromEnvironment(Map.of("DATABASE_URL", db.jdbcUrl(),
                "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(port),
                "BUZZ_SCHEDULED_MESSAGES", "on", "BUZZ_ACCESS_POLICY", "http",
                "BUZZ_ACCESS_URL", "http://127.0.0.1:" + callback.getAddress().getPort() + "/access",
                "RELAY_URL", "ws://127.0.0.1:" + freePort(), "BUZZ_MAX_PENDING_PER_OWNER", Integer.toString(MAX_PENDING),
                "BUZZ_OWNER_WRITE_BURST", "10000")));
        client = new SignedClient(sidecar.httpPort(), URI.create("http://127.0.0.1:" + sidecar.httpPort()));
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
    void batch_validDuplicateStoredOverLimitForgedMalformedAndDeniedItems_eachAnsweredInOrderOnlyValidStored() {
        SecretKey owner = new SecretKey("b7".repeat(32));
        long in = Instant.now().plus(Duration.ofHours(3)).getEpochSecond();
        NostrEvent stored = message(owner, "general", in, "stored before");
        String storedId = client.schedule(owner, stored).json().get("id").asText();
        NostrEvent first = message(owner, "general", in + 60, "first");
        NostrEvent signedThenChanged = message(owner, "general", in + 120, "as signed");
        NostrEvent forged = new NostrEvent(signedThenChanged.id(), signedThenChanged.pubkey(),
                signedThenChanged.createdAt(), 9, signedThenChanged.tags(), "changed after signing",
                signedThenChanged.sig());
        NostrEvent denied = message(owner, "private", in + 180, "members only");
        List<NostrEvent> more = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            more.add(message(owner, "general", in + 600 * (i + 1), "more " + i));
        }
        List<String> items = List.of(json(first), json(first), json(stored), "{\"kind\":9}", json(forged),
                json(denied), json(more.get(0)), json(more.get(1)), json(more.get(2)), json(more.get(3)),
                json(more.get(4)));
        long messages = count("scheduled_message");
        long revisions = count("scheduled_message_revision");
        long keys = count("idempotency_key");

        SignedClient.Reply reply = client.send(owner, "POST", BATCH, "{\"events\":[" + String.join(",", items) + "]}");

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        JsonNode results = reply.json().get("results");
        // Pending limit 6: the stored one, first and four of the five more; the fifth is over it.
        assertThat(field(results, "status")).containsExactly("201", "200", "200", "400", "400", "403", "201", "201",
                "201", "201", "429");
        assertThat(field(results, "error")).containsExactly(null, null, null, "invalid_event", "invalid_event",
                "not_in_channel", null, null, null, null, "too_many_pending");
        assertThat(results.get(1).get("item").get("id")).isEqualTo(results.get(0).get("item").get("id"));
        assertThat(results.get(2).get("item").get("id").asText()).isEqualTo(storedId);
        assertThat(count("scheduled_message")).as("first and four more").isEqualTo(messages + 5);
        assertThat(count("scheduled_message_revision")).isEqualTo(revisions + 5);
        assertThat(count("idempotency_key")).isEqualTo(keys + 5);
        assertThat(db.queryColumn("SELECT event_id FROM scheduled_message WHERE owner = ? ORDER BY due_at",
                owner.publicKey().hex())).containsExactly(stored.id().hex(), first.id().hex(), more.get(0).id().hex(),
                more.get(1).id().hex(), more.get(2).id().hex(), more.get(3).id().hex());
    }

    @Test
    void batch_payloadNotTheBodysHashOrMissing_isUnauthorizedAndStoresNothing() {
        SecretKey owner = new SecretKey("b8".repeat(32));
        long in = Instant.now().plus(Duration.ofHours(3)).getEpochSecond();
        String body = "{\"events\":[" + json(message(owner, "general", in, "one")) + "]}";
        String other = "{\"events\":[" + json(message(owner, "general", in, "two")) + "]}";
        long messages = count("scheduled_message");

        SignedClient.Reply wrong = client.send(owner, "POST", BATCH, body, Map.of(),
                Optional.of(other.getBytes(StandardCharsets.UTF_8)));
        SignedClient.Reply none = client.send(owner, "POST", BATCH, body, Map.of(), Optional.empty());
        SignedClient.Reply right = client.send(owner, "POST", BATCH, body);

        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.json().get("message").asText()).contains("payload tag does not match");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.json().get("message").asText()).contains("needs a payload tag");
        assertThat(right.status()).as("the same body, rightly signed").isEqualTo(200);
        assertThat(count("scheduled_message")).isEqualTo(messages + 1);
    }

    @Test
    void bulkCancel_byChannelAndByDueRange_cancelOnlyTheOwnersMatchingPendingRows() {
        SecretKey owner = new SecretKey("b9".repeat(32));
        SecretKey other = new SecretKey("ba".repeat(32));
        long in = Instant.now().plus(Duration.ofHours(4)).getEpochSecond();
        String ops = id(client.schedule(owner, message(owner, "ops", in, "ops")));
        String othersOps = id(client.schedule(other, message(other, "ops", in, "theirs")));
        String early = id(client.schedule(owner, message(owner, "general", in + 100, "early")));
        String inRange = id(client.schedule(owner, message(owner, "general", in + 3600, "in range")));
        String othersInRange = id(client.schedule(other, message(other, "general", in + 3600, "theirs too")));
        String late = id(client.schedule(owner, message(owner, "general", in + 7200, "late")));

        SignedClient.Reply byChannel = client.send(owner, "POST", CANCEL, "{\"channel\":\"ops\"}");
        SignedClient.Reply byRange = client.send(owner, "POST", CANCEL, "{\"due_after\":" + (in + 3600)
                + ",\"due_before\":" + (in + 7200) + "}");

        assertThat(byChannel.text()).isEqualTo("{\"cancelled\":1,\"sending\":0}");
        assertThat(byRange.text()).isEqualTo("{\"cancelled\":1,\"sending\":0}");
        assertThat(state(ops)).isEqualTo("cancelled");
        assertThat(state(inRange)).isEqualTo("cancelled");
        assertThat(List.of(state(othersOps), state(early), state(othersInRange), state(late))).containsOnly("scheduled");
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message_revision WHERE message_id IN (?::uuid, ?::uuid)"
                + " AND event_json IS NOT NULL", ops, inRange)).as("their events are deleted at once").isZero();
    }

    private static NostrEvent message(SecretKey author, String channel, long createdAt, String content) {
        return new Bip340Signer(author, new SecureRandom()).sign(createdAt, 9, List.of(List.of("h", channel)), content);
    }

    private static String json(NostrEvent event) {
        return NostrEventJson.write(event);
    }

    private static String id(SignedClient.Reply reply) {
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply.json().get("id").asText();
    }

    private static String state(String id) {
        return db.queryColumn("SELECT state FROM scheduled_message WHERE id = ?::uuid", id).get(0);
    }

    private static List<String> field(JsonNode results, String name) {
        List<String> values = new ArrayList<>();
        results.forEach(result -> values.add(result.hasNonNull(name) ? result.get(name).asText() : null));
        return values;
    }

    private static long count(String table) {
        return db.queryLong("SELECT count(*) FROM " + table);
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}

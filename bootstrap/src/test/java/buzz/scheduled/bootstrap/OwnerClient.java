package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.ProofOfWork;
import buzz.scheduled.domain.nostr.UnsignedEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An owner talking to a running sidecar as a client app would: events signed with real BIP-340 keys and NIP-98
 * {@code Authorization} headers for {@code http://127.0.0.1:<port>} (the default {@code PUBLIC_BASE_URL}).
 */
final class OwnerClient {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Bip340Signer signer;
    // Generous: on a loaded machine 200 connections at once may wait seconds to be accepted; this only bounds a hang.
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(20)).build();
    private final AtomicLong nonce = new AtomicLong();
    private final int port;
    private final Duration signingClockOffset;

    OwnerClient(int port) {
        this(port, Duration.ZERO);
    }

    /**
     * A client whose NIP-98 headers are dated {@code signingClockOffset} away from this machine's clock: the sidecar
     * checks them against its own host's clock, which a test may have moved (libfaketime).
     */
    OwnerClient(int port, Duration signingClockOffset) {
        this(port, signingClockOffset, SecretKey.generate(new SecureRandom()));
    }

    /** A client signing with {@code key} (one a test also hands to the client commands). */
    OwnerClient(int port, SecretKey key) {
        this(port, Duration.ZERO, key);
    }

    private OwnerClient(int port, Duration signingClockOffset, SecretKey key) {
        this.port = port;
        this.signingClockOffset = signingClockOffset;
        this.signer = new Bip340Signer(key, new SecureRandom());
    }

    /** A kind-9 channel message for {@code channel}, due {@code dueIn} from now. */
    NostrEvent message(String channel, String content, Duration dueIn) {
        return signer.sign(Instant.now().plus(dueIn).getEpochSecond(), 9, List.of(List.of("h", channel)), content);
    }

    /** A kind-9 channel message for {@code channel}, due at {@code createdAt} (Unix seconds). */
    NostrEvent messageAt(String channel, String content, long createdAt) {
        return signer.sign(createdAt, 9, List.of(List.of("h", channel)), content);
    }

    /**
     * A kind-9 message mined to at least {@code bits} leading zero bits of its id (NIP-13), its nonce tag committing
     * to {@code bits}.
     */
    NostrEvent minedMessage(String channel, String content, Duration dueIn, int bits) {
        return minedMessage(channel, content, dueIn, bits, List.of());
    }

    /** {@link #minedMessage(String, String, Duration, int)} with {@code extra} tags after the nonce tag. */
    NostrEvent minedMessage(String channel, String content, Duration dueIn, int bits, List<List<String>> extra) {
        long createdAt = Instant.now().plus(dueIn).getEpochSecond();
        for (long nonce = 0; ; nonce++) {
            List<List<String>> tags = new ArrayList<>();
            tags.add(List.of("h", channel));
            tags.add(List.of("nonce", Long.toString(nonce), Integer.toString(bits)));
            tags.addAll(extra);
            EventId id = new UnsignedEvent(signer.publicKey(), createdAt, 9, tags, content).computeId();
            if (ProofOfWork.leadingZeroBits(id) >= bits) {
                return signer.sign(createdAt, 9, tags, content);
            }
        }
    }

    /** {@code POST /v1/scheduled-messages} with {@code event}. */
    Reply schedule(NostrEvent event) throws IOException, InterruptedException {
        String body = JSON.writeValueAsString(java.util.Map.of("event", NostrEventJson.toJson(event)));
        return send("POST", "/v1/scheduled-messages", body);
    }

    /** {@code POST /v1/scheduled-messages/batch} with {@code events}, as one series when {@code series}. */
    Reply scheduleBatch(List<NostrEvent> events, boolean series) throws IOException, InterruptedException {
        String body = JSON.writeValueAsString(java.util.Map.of("events",
                events.stream().map(NostrEventJson::toJson).toList(), "series", series));
        return send("POST", "/v1/scheduled-messages/batch", body);
    }

    /** {@code POST /v1/scheduled-messages/{id}/send-now} with a newly signed {@code event}. */
    Reply sendNow(String id, NostrEvent event) throws IOException, InterruptedException {
        String body = JSON.writeValueAsString(java.util.Map.of("event", NostrEventJson.toJson(event)));
        return send("POST", "/v1/scheduled-messages/" + id + "/send-now", body);
    }

    /** {@code POST /v1/scheduled-messages/{id}/send-now} without a new event. */
    Reply sendNow(String id) throws IOException, InterruptedException {
        return send("POST", "/v1/scheduled-messages/" + id + "/send-now", null);
    }

    /** {@code GET /v1/info} (no authentication). */
    Reply info() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/v1/info")).timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(), JSON.readTree(response.body()), response.body(), response.headers());
    }

    /** {@code GET /v1/scheduled-messages/{id}/attempts}. */
    Reply attempts(String id) throws IOException, InterruptedException {
        return send("GET", "/v1/scheduled-messages/" + id + "/attempts", null);
    }

    /** {@code GET /v1/owner/settings}. */
    Reply settings() throws IOException, InterruptedException {
        return send("GET", "/v1/owner/settings", null);
    }

    /** {@code PUT /v1/owner/settings} with {@code {"notices": choice}}. */
    Reply notices(String choice) throws IOException, InterruptedException {
        return send("PUT", "/v1/owner/settings", "{\"notices\":\"" + choice + "\"}");
    }

    /** {@code GET /v1/scheduled-messages/{id}}. */
    Reply get(String id) throws IOException, InterruptedException {
        return send("GET", "/v1/scheduled-messages/" + id, null);
    }

    private Reply send(String method, String path, String body) throws IOException, InterruptedException {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(bytes))
                .header("Authorization", nip98(method, "http://127.0.0.1:" + port + path, bytes));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode json = response.body().isEmpty() ? null : JSON.readTree(response.body());
        return new Reply(response.statusCode(), json, response.body(), response.headers());
    }

    /**
     * A fresh {@code Authorization} value for {@code method path} without a {@code payload} tag, for requests a test
     * writes by hand (a body the header does not cover).
     */
    String authorization(String method, String path) {
        return nip98(method, "http://127.0.0.1:" + port + path, new byte[0]);
    }

    /** NIP-98: a kind-27235 event naming the URL, method and body hash, base64 in {@code Authorization: Nostr}. */
    private String nip98(String method, String url, byte[] body) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("u", url));
        tags.add(List.of("method", method));
        if (body.length > 0) {
            tags.add(List.of("payload", sha256(body)));
        }
        tags.add(List.of("nonce", Long.toString(nonce.incrementAndGet())));
        NostrEvent auth = signer.sign(Instant.now().plus(signingClockOffset).getEpochSecond(), 27235, tags, "");
        return "Nostr " + Base64.getEncoder().encodeToString(NostrEventJson.write(auth).getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A response: status, parsed JSON body (or null when empty), the raw text and the headers. */
    record Reply(int status, JsonNode json, String text, java.net.http.HttpHeaders headers) {
    }
}

package buzz.scheduled.bootstrap.access;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Calls the sidecar's HTTP API with real NIP-98 headers (BIP-340 signed kind 27235) for any key. */
final class SignedClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final int port;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicLong nonce = new AtomicLong();

    SignedClient(int port, URI base) {
        this.port = port;
        this.base = base;
    }

    /** An answer with its JSON body parsed when there is one. */
    record Reply(int status, JsonNode json, String text) {
        String error() {
            return json == null || json.get("error") == null ? null : json.get("error").asText();
        }
    }

    /** A kind-9 message by {@code author} in {@code channel}, signed for {@code dueAt}. */
    static NostrEvent message(SecretKey author, String channel, Instant dueAt, String content) {
        return new Bip340Signer(author, new SecureRandom()).sign(dueAt.getEpochSecond(), 9,
                List.of(List.of("h", channel)), content);
    }

    /** {@code POST /v1/scheduled-messages} as the event's author. */
    Reply schedule(SecretKey author, NostrEvent event) {
        return send(author, "POST", "/v1/scheduled-messages", "{\"event\":" + NostrEventJson.write(event) + "}");
    }

    /** {@code GET /v1/scheduled-messages/{id}} as {@code owner}. */
    Reply item(SecretKey owner, String id) {
        return send(owner, "GET", "/v1/scheduled-messages/" + id, null);
    }

    /** A request signed by {@code signer} (null: no Authorization header). */
    Reply send(SecretKey signer, String method, String path, String body) {
        return send(signer, method, path, body, java.util.Map.of());
    }

    /** A request signed by {@code signer} with extra {@code headers} (e.g. If-Match, Idempotency-Key). */
    Reply send(SecretKey signer, String method, String path, String body, java.util.Map<String, String> headers) {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        return send(signer, method, path, body, headers, bytes.length > 0 ? java.util.Optional.of(bytes)
                : java.util.Optional.empty());
    }

    /**
     * A request whose NIP-98 {@code payload} tag is the SHA-256 of {@code payloadOf} (the body itself, other bytes, or
     * no tag at all when empty).
     */
    Reply send(SecretKey signer, String method, String path, String body, java.util.Map<String, String> headers,
               java.util.Optional<byte[]> payloadOf) {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(bytes));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        headers.forEach(request::header);
        if (signer != null) {
            request.header("Authorization", nip98(signer, method, base + path, payloadOf));
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            String type = response.headers().firstValue("Content-Type").orElse("");
            JsonNode json = type.contains("json") && !response.body().isEmpty() ? JSON.readTree(response.body()) : null;
            return new Reply(response.statusCode(), json, response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String nip98(SecretKey signer, String method, String url, java.util.Optional<byte[]> payloadOf) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("u", url));
        tags.add(List.of("method", method));
        payloadOf.ifPresent(bytes -> tags.add(List.of("payload", sha256(bytes))));
        tags.add(List.of("nonce", Long.toString(nonce.incrementAndGet())));
        NostrEvent auth = new Bip340Signer(signer, new SecureRandom()).sign(Instant.now().getEpochSecond(), 27235,
                tags, "");
        return "Nostr " + Base64.getEncoder().encodeToString(NostrEventJson.write(auth).getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(byte[] body) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

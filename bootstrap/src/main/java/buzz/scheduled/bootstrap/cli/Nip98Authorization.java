package buzz.scheduled.bootstrap.cli;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * NIP-98 HTTP Auth for one request: a kind-27235 event signed by the author with the tags {@code u} (the absolute
 * URL with its query), {@code method}, {@code payload} (lowercase hex SHA-256 of the exact body bytes, when there is
 * a body) and a random {@code nonce} (so two identical requests in one second are different events), sent as
 * {@code Authorization: Nostr <base64 of the event JSON>}.
 */
final class Nip98Authorization {

    /** NIP-98's event kind. */
    static final int KIND = 27235;

    private final Bip340Signer signer;
    private final SecureRandom random;

    Nip98Authorization(Bip340Signer signer, SecureRandom random) {
        this.signer = signer;
        this.random = random;
    }

    /**
     * The {@code Authorization} header value.
     *
     * @param method    the HTTP method, e.g. {@code PUT}
     * @param url       the absolute URL as the sidecar sees it: {@code PUBLIC_BASE_URL} + path + query
     * @param body      the exact body bytes sent (empty: no body, no {@code payload} tag)
     * @param createdAt Unix seconds, now (the sidecar accepts 60 s either way)
     */
    String header(String method, String url, byte[] body, long createdAt) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("u", url));
        tags.add(List.of("method", method));
        if (body.length > 0) {
            tags.add(List.of("payload", sha256(body)));
        }
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        tags.add(List.of("nonce", Hex.encode(nonce)));
        NostrEvent event = signer.sign(createdAt, KIND, tags, "");
        return "Nostr " + Base64.getEncoder().encodeToString(NostrEventJson.write(event).getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(byte[] bytes) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}

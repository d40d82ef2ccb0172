package buzz.scheduled.application.fakes;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Well-shaped kind-9 channel events for tests that do not check signatures (pair with
 * {@link FakeEventSignatures}): the id is a hash of the fields, so different content gives a different id.
 */
public final class SampleEvents {
    /** An owner key (shape only). */
    public static final PublicKey OWNER = new PublicKey("a".repeat(64));
    private static final Signature SIG = new Signature("b".repeat(128));

    private SampleEvents() {
    }

    /** A kind-9 event by {@link #OWNER} in {@code channel}, due at {@code createdAt} (Unix seconds). */
    public static NostrEvent message(String channel, long createdAt, String content) {
        return message(OWNER, channel, createdAt, content);
    }

    /** A kind-9 event by {@code owner} in {@code channel}, due at {@code createdAt} (Unix seconds). */
    public static NostrEvent message(PublicKey owner, String channel, long createdAt, String content) {
        List<List<String>> tags = List.of(List.of("h", channel));
        String preimage = owner.hex() + "|" + createdAt + "|" + channel + "|" + content;
        return new NostrEvent(new EventId(sha256(preimage)), owner, createdAt, 9, tags, content, SIG);
    }

    private static String sha256(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }
}

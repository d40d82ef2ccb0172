package buzz.scheduled.domain.nostr;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The five signed-over fields of a Nostr event (NIP-01) before it has an id and a signature, with the canonical
 * serialization and the id computed from it.
 *
 * <p>The canonical serialization is {@code [0,<pubkey>,<created_at>,<kind>,<tags>,<content>]} as compact JSON
 * with {@code JSON.stringify} string escaping (see NIP-01): the five short escapes {@code \b \t \n \f \r},
 * other C0 controls as <code>&#92;u00xx</code> with lowercase hex, everything else raw UTF-8. The id is the SHA-256 of
 * its UTF-8 bytes. It is written by hand because general JSON writers escape differently.
 *
 * @param pubkey    author's x-only public key
 * @param createdAt Unix seconds, not negative
 * @param kind      0..65535
 * @param tags      each tag a non-empty list of strings (order and duplicates are significant)
 * @param content   text without lone surrogates
 * @throws IllegalArgumentException naming the field that is malformed
 */
public record UnsignedEvent(PublicKey pubkey, long createdAt, int kind, List<List<String>> tags, String content) {

    public UnsignedEvent {
        if (pubkey == null) {
            throw new IllegalArgumentException("pubkey is missing");
        }
        tags = EventFields.check(createdAt, kind, tags, content);
    }

    /** The NIP-01 canonical serialization, the exact text whose SHA-256 is the event id. */
    public String canonicalSerialization() {
        StringBuilder out = new StringBuilder(128 + content.length());
        out.append("[0,\"").append(pubkey.hex()).append("\",")
                .append(createdAt).append(',')
                .append(kind).append(",[");
        for (int i = 0; i < tags.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append('[');
            List<String> tag = tags.get(i);
            for (int j = 0; j < tag.size(); j++) {
                if (j > 0) {
                    out.append(',');
                }
                JsonText.appendQuoted(out, tag.get(j));
            }
            out.append(']');
        }
        out.append("],");
        JsonText.appendQuoted(out, content);
        out.append(']');
        return out.toString();
    }

    /** The event id: SHA-256 of the UTF-8 bytes of {@link #canonicalSerialization()}. */
    public EventId computeId() {
        byte[] preimage = canonicalSerialization().getBytes(StandardCharsets.UTF_8);
        return new EventId(Hex.encode(sha256().digest(preimage)));
    }

    /** The signed event made of these fields, the computed id and {@code sig} (which this does not check). */
    public NostrEvent withSignature(Signature sig) {
        return new NostrEvent(computeId(), pubkey, createdAt, kind, tags, content, sig);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}

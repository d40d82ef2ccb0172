package buzz.scheduled.domain.nostr;

import java.util.List;
import java.util.Optional;

/**
 * A signed Nostr event (NIP-01): the seven fields exactly as the author signed them. The constructor checks
 * shapes only (lowercase hex of exact lengths, 0 &le; kind &le; 65535, created_at &ge; 0, tags non-empty arrays
 * of strings, no lone surrogates); whether {@code id} matches the content and whether {@code sig} verifies is
 * decided by the event-signature port. Wire JSON is read and written by {@link NostrEventJson}.
 *
 * @param id        event id, SHA-256 of the canonical serialization
 * @param pubkey    author's x-only public key
 * @param createdAt Unix seconds, not negative; for a scheduled message this is its due time
 * @param kind      0..65535
 * @param tags      each tag a non-empty list of strings
 * @param content   arbitrary UTF-16 text without lone surrogates
 * @param sig       BIP-340 signature over the id bytes
 * @throws IllegalArgumentException naming the field that is malformed
 */
public record NostrEvent(
        EventId id, PublicKey pubkey, long createdAt, int kind, List<List<String>> tags, String content,
        Signature sig) {

    /** Largest kind NIP-01 allows. */
    public static final int MAX_KIND = 65535;

    public NostrEvent {
        if (id == null) {
            throw new IllegalArgumentException("id is missing");
        }
        if (pubkey == null) {
            throw new IllegalArgumentException("pubkey is missing");
        }
        if (sig == null) {
            throw new IllegalArgumentException("sig is missing");
        }
        tags = EventFields.check(createdAt, kind, tags, content);
    }

    /** The five signed-over fields, without id and sig. */
    public UnsignedEvent unsigned() {
        return new UnsignedEvent(pubkey, createdAt, kind, tags, content);
    }

    /** The NIP-01 canonical serialization of this event (the id preimage); see {@link UnsignedEvent}. */
    public String canonicalSerialization() {
        return unsigned().canonicalSerialization();
    }

    /** Whether {@code id} equals the SHA-256 of the canonical serialization (recomputed, never trusted). */
    public boolean idMatchesContent() {
        return unsigned().computeId().equals(id);
    }

    /** Values at index 1 of every tag named {@code name}, in order; a tag with no value yields {@code ""}. */
    public List<String> tagValues(String name) {
        return tags.stream()
                .filter(tag -> tag.get(0).equals(name))
                .map(tag -> tag.size() > 1 ? tag.get(1) : "")
                .toList();
    }

    /** The first value of tag {@code name}, if present. */
    public Optional<String> firstTagValue(String name) {
        List<String> values = tagValues(name);
        return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }
}

package buzz.scheduled.domain.nostr;

import java.util.List;
import java.util.Optional;

/**
 * A signed Nostr event (NIP-01): the seven fields exactly as the author signed them. The constructor checks
 * shapes only (hex lengths, kind range, tag arrays); whether {@code id} matches the content and whether
 * {@code sig} verifies is decided by the event-signature port.
 *
 * @param id        event id, SHA-256 of the canonical serialization
 * @param pubkey    author's x-only public key
 * @param createdAt Unix seconds; for a scheduled message this is its due time
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
        if (createdAt < 0) {
            throw new IllegalArgumentException("created_at must not be negative");
        }
        if (kind < 0 || kind > MAX_KIND) {
            throw new IllegalArgumentException("kind must be between 0 and " + MAX_KIND);
        }
        if (tags == null) {
            throw new IllegalArgumentException("tags is missing");
        }
        if (content == null) {
            throw new IllegalArgumentException("content is missing");
        }
        for (List<String> tag : tags) {
            if (tag == null || tag.isEmpty()) {
                throw new IllegalArgumentException("each tag must be a non-empty array of strings");
            }
            for (String value : tag) {
                if (value == null) {
                    throw new IllegalArgumentException("tag values must be strings");
                }
            }
        }
        tags = tags.stream().map(List::copyOf).toList();
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

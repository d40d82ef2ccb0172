package buzz.scheduled.domain.nostr;

/**
 * A NIP-01 event id: the SHA-256 of the event's canonical serialization, as 64 lowercase hex characters.
 *
 * @param hex 64 lowercase hex characters
 * @throws IllegalArgumentException when {@code hex} is not 64 lowercase hex characters
 */
public record EventId(String hex) {
    public EventId {
        Hex.requireLowercase("id", hex, 32);
    }

    @Override
    public String toString() {
        return hex;
    }
}

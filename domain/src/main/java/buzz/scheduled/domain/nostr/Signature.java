package buzz.scheduled.domain.nostr;

/**
 * A BIP-340 Schnorr signature over an event id: 128 lowercase hex characters (NIP-01 {@code sig}).
 *
 * @param hex 128 lowercase hex characters
 * @throws IllegalArgumentException when {@code hex} is not 128 lowercase hex characters
 */
public record Signature(String hex) {
    public Signature {
        Hex.requireLowercase("sig", hex, 64);
    }

    @Override
    public String toString() {
        return hex;
    }
}

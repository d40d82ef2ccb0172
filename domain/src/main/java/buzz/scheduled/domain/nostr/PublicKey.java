package buzz.scheduled.domain.nostr;

/**
 * A BIP-340 x-only public key as Nostr writes it: 64 lowercase hex characters (NIP-01 {@code pubkey}).
 * Only the shape is checked here; whether the key lies on the curve is the signature port's business.
 *
 * @param hex 64 lowercase hex characters
 * @throws IllegalArgumentException when {@code hex} is not 64 lowercase hex characters
 */
public record PublicKey(String hex) {
    public PublicKey {
        Hex.requireLowercase("pubkey", hex, 32);
    }

    @Override
    public String toString() {
        return hex;
    }
}

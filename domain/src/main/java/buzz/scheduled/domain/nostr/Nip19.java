package buzz.scheduled.domain.nostr;

/**
 * NIP-19 bare keys and ids: a 32-byte value in {@link Bech32} under the prefix {@code npub} (public key),
 * {@code nsec} (secret key) or {@code note} (event id). These forms are for people to read and paste; events and
 * the wire always carry lowercase hex, which is what every method here takes or returns.
 */
public final class Nip19 {

    /** Prefix of a public key. */
    public static final String NPUB = "npub";
    /** Prefix of a secret key. */
    public static final String NSEC = "nsec";
    /** Prefix of an event id. */
    public static final String NOTE = "note";

    private static final int VALUE_BYTES = 32;

    private Nip19() {
    }

    /** {@code npub1…} for {@code key}. */
    public static String npub(PublicKey key) {
        return encode(NPUB, key.hex());
    }

    /**
     * The public key in {@code npub}.
     *
     * @throws IllegalArgumentException when {@code npub} is not valid bech32, has another prefix, or does not hold
     *                                  exactly 32 bytes
     */
    public static PublicKey publicKey(String npub) {
        return new PublicKey(decode(NPUB, npub));
    }

    /**
     * {@code nsec1…} for a secret key given as 64 lowercase hex characters.
     *
     * @throws IllegalArgumentException when {@code secretKeyHex} is not 64 lowercase hex characters (the message
     *                                  never contains it)
     */
    public static String nsec(String secretKeyHex) {
        Hex.requireLowercase("secret key", secretKeyHex, VALUE_BYTES);
        return encode(NSEC, secretKeyHex);
    }

    /**
     * The secret key in {@code nsec}, as 64 lowercase hex characters (range checks belong to the signer).
     *
     * @throws IllegalArgumentException when {@code nsec} is not valid bech32, has another prefix, or does not hold
     *                                  exactly 32 bytes; the message never quotes the input
     */
    public static String secretKeyHex(String nsec) {
        return decode(NSEC, nsec);
    }

    /** {@code note1…} for {@code id}. */
    public static String note(EventId id) {
        return encode(NOTE, id.hex());
    }

    /**
     * The event id in {@code note}.
     *
     * @throws IllegalArgumentException when {@code note} is not valid bech32, has another prefix, or does not hold
     *                                  exactly 32 bytes
     */
    public static EventId eventId(String note) {
        return new EventId(decode(NOTE, note));
    }

    private static String encode(String prefix, String hex) {
        return Bech32.encode(prefix, Bech32.toFiveBit(Hex.decode(hex)));
    }

    private static String decode(String prefix, String text) {
        Bech32.Decoded decoded = Bech32.decode(text);
        if (!decoded.humanReadablePart().equals(prefix)) {
            throw new IllegalArgumentException("expected a NIP-19 " + prefix + " value, got the prefix '"
                    + decoded.humanReadablePart() + "'");
        }
        byte[] bytes = Bech32.fromFiveBit(decoded.data());
        if (bytes.length != VALUE_BYTES) {
            throw new IllegalArgumentException("a NIP-19 " + prefix + " value holds " + VALUE_BYTES
                    + " bytes, this one " + bytes.length);
        }
        return Hex.encode(bytes);
    }
}

package buzz.scheduled.adapters.relay.signature;

import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;

/**
 * The {@link EventSignatures} port with BIP-340 verification ({@link Secp256k1Schnorr}): recompute the id from the
 * canonical serialization (never trust the stated one), decode the x-only pubkey (not a curve x coordinate →
 * invalid), and verify the Schnorr signature over the 32 id bytes. Stateless and thread-safe.
 */
public final class Bip340EventSignatures implements EventSignatures {

    /** Reason when the stated id is not the hash of the event. */
    public static final String ID_MISMATCH = "id does not match content";

    /** Reason when the pubkey has no point on secp256k1. */
    public static final String PUBKEY_NOT_ON_CURVE = "pubkey is not the x coordinate of a point on secp256k1";

    /** Reason when the signature is wrong for this pubkey and id. */
    public static final String SIGNATURE_MISMATCH = "signature does not verify for this pubkey and id";

    @Override
    public Verdict verify(NostrEvent event) {
        if (!event.idMatchesContent()) {
            return new Verdict.Invalid(ID_MISMATCH);
        }
        return switch (Secp256k1Schnorr.verify(Hex.decode(event.pubkey().hex()), Hex.decode(event.id().hex()),
                Hex.decode(event.sig().hex()))) {
            case VALID -> new Verdict.Valid();
            case KEY_NOT_ON_CURVE -> new Verdict.Invalid(PUBKEY_NOT_ON_CURVE);
            case SIGNATURE_MISMATCH -> new Verdict.Invalid(SIGNATURE_MISMATCH);
        };
    }

    /** BIP-340 verification of {@code signature} over {@code message}; false for a pubkey off the curve. */
    static boolean verifyMessage(byte[] pubkey, byte[] message, byte[] signature) {
        return Secp256k1Schnorr.verify(pubkey, message, signature) == Secp256k1Schnorr.Result.VALID;
    }
}

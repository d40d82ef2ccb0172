package buzz.scheduled.adapters.relay.signature;

import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.BIP340Signer;

/**
 * The {@link EventSignatures} port with BouncyCastle's BIP-340 verifier: recompute the id from the canonical
 * serialization (never trust the stated one), decode the x-only pubkey (not a curve x coordinate → invalid), and
 * verify the Schnorr signature over the 32 id bytes. Stateless and thread-safe.
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
        ECPublicKeyParameters key = decodePublicKey(Hex.decode(event.pubkey().hex()));
        if (key == null) {
            return new Verdict.Invalid(PUBKEY_NOT_ON_CURVE);
        }
        return verify(key, Hex.decode(event.id().hex()), Hex.decode(event.sig().hex()))
                ? new Verdict.Valid()
                : new Verdict.Invalid(SIGNATURE_MISMATCH);
    }

    /** BIP-340 verification of {@code signature} over {@code message}; false for a pubkey off the curve. */
    static boolean verifyMessage(byte[] pubkey, byte[] message, byte[] signature) {
        ECPublicKeyParameters key = decodePublicKey(pubkey);
        return key != null && verify(key, message, signature);
    }

    private static ECPublicKeyParameters decodePublicKey(byte[] xOnly) {
        // BouncyCastle answers null both for x >= p and for an x with no point on the curve.
        return BIP340Signer.decodePublicKey(xOnly);
    }

    private static boolean verify(ECPublicKeyParameters key, byte[] message, byte[] signature) {
        BIP340Signer verifier = new BIP340Signer();
        verifier.init(false, key);
        verifier.update(message, 0, message.length);
        return verifier.verifySignature(signature);
    }
}

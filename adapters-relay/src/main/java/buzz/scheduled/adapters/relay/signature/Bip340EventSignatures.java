package buzz.scheduled.adapters.relay.signature;

import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    private static final Verdict VALID = new Verdict.Valid();

    @Override
    public Verdict verify(NostrEvent event) {
        if (!event.idMatchesContent()) {
            return new Verdict.Invalid(ID_MISMATCH);
        }
        return signatureVerdict(event);
    }

    /**
     * The ids first; then the signatures of each pubkey that signed two or more of the events in one BIP-340 batch
     * verification ({@link Secp256k1Schnorr#verifyBatch}), and only when a batch fails each of its signatures alone,
     * so every verdict is the one {@link #verify} gives. A batch of a hundred events by one key costs about a third of
     * a hundred verifications (docs/benchmarks.md, "Batch verification"); one with a bad signature costs that third
     * more than one by one.
     */
    @Override
    public List<Verdict> verifyAll(List<NostrEvent> events) {
        Verdict[] verdicts = new Verdict[events.size()];
        Map<PublicKey, List<Integer>> byKey = new LinkedHashMap<>();
        for (int i = 0; i < verdicts.length; i++) {
            NostrEvent event = events.get(i);
            if (event.idMatchesContent()) {
                byKey.computeIfAbsent(event.pubkey(), key -> new ArrayList<>()).add(i);
            } else {
                verdicts[i] = new Verdict.Invalid(ID_MISMATCH);
            }
        }
        for (Map.Entry<PublicKey, List<Integer>> signer : byKey.entrySet()) {
            List<Integer> positions = signer.getValue();
            if (positions.size() > 1 && verifiedTogether(signer.getKey(), events, positions)) {
                positions.forEach(i -> verdicts[i] = VALID);
                continue;
            }
            positions.forEach(i -> verdicts[i] = signatureVerdict(events.get(i)));
        }
        return List.of(verdicts);
    }

    private static boolean verifiedTogether(PublicKey key, List<NostrEvent> events, List<Integer> positions) {
        byte[][] ids = new byte[positions.size()][];
        byte[][] signatures = new byte[positions.size()][];
        for (int j = 0; j < ids.length; j++) {
            NostrEvent event = events.get(positions.get(j));
            ids[j] = Hex.decode(event.id().hex());
            signatures[j] = Hex.decode(event.sig().hex());
        }
        return Secp256k1Schnorr.verifyBatch(Hex.decode(key.hex()), ids, signatures)
                == Secp256k1Schnorr.BatchResult.VALID;
    }

    private static Verdict signatureVerdict(NostrEvent event) {
        return switch (Secp256k1Schnorr.verify(Hex.decode(event.pubkey().hex()), Hex.decode(event.id().hex()),
                Hex.decode(event.sig().hex()))) {
            case VALID -> VALID;
            case KEY_NOT_ON_CURVE -> new Verdict.Invalid(PUBKEY_NOT_ON_CURVE);
            case SIGNATURE_MISMATCH -> new Verdict.Invalid(SIGNATURE_MISMATCH);
        };
    }

    /** BIP-340 verification of {@code signature} over {@code message}; false for a pubkey off the curve. */
    static boolean verifyMessage(byte[] pubkey, byte[] message, byte[] signature) {
        return Secp256k1Schnorr.verify(pubkey, message, signature) == Secp256k1Schnorr.Result.VALID;
    }
}

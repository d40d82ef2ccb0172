package buzz.scheduled.adapters.relay.signature;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import buzz.scheduled.domain.nostr.UnsignedEvent;
import java.security.SecureRandom;
import java.util.List;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.BIP340Signer;

/**
 * Signs Nostr events with one secret key, e.g. the sidecar's own NIP-42 AUTH events, using BouncyCastle's
 * BIP-340 Schnorr signer. Each signature draws 32 bytes of auxiliary randomness (BIP-340 {@code aux_rand}) from
 * a {@link SecureRandom}; {@link #withFixedAux} makes signing reproducible for tests and vectors. Thread-safe.
 */
public final class Bip340Signer {

    private static final ECDomainParameters SECP256K1 = BIP340Signer.getDomain();
    private static final int AUX_BYTES = 32;

    private final AsymmetricCipherKeyPair keyPair;
    private final PublicKey publicKey;
    private final SecureRandom auxSource;

    /** A signer drawing fresh {@code aux_rand} from {@code random} for every signature. */
    public Bip340Signer(SecretKey key, SecureRandom random) {
        if (key == null || random == null) {
            throw new IllegalArgumentException("key and random are required");
        }
        ECPrivateKeyParameters secret = new ECPrivateKeyParameters(key.scalar(), SECP256K1);
        // Passing the public point spares BouncyCastle a scalar multiplication on every signature.
        this.keyPair = new AsymmetricCipherKeyPair(new ECPublicKeyParameters(key.point(), SECP256K1), secret);
        this.publicKey = key.publicKey();
        this.auxSource = random;
    }

    /**
     * A deterministic signer using the same 32-byte {@code aux_rand} for every signature (tests, BIP-340 vectors).
     *
     * @throws IllegalArgumentException when {@code aux} is not 32 bytes
     */
    public static Bip340Signer withFixedAux(SecretKey key, byte[] aux) {
        if (aux == null || aux.length != AUX_BYTES) {
            throw new IllegalArgumentException("aux_rand must be " + AUX_BYTES + " bytes");
        }
        return new Bip340Signer(key, new FixedAux(aux));
    }

    /** The x-only public key events signed here carry. */
    public PublicKey publicKey() {
        return publicKey;
    }

    /** Signs a new event by this key with the given fields (id computed from the canonical serialization). */
    public NostrEvent sign(long createdAt, int kind, List<List<String>> tags, String content) {
        return sign(new UnsignedEvent(publicKey, createdAt, kind, tags, content));
    }

    /**
     * Signs {@code unsigned}.
     *
     * @throws IllegalArgumentException when its pubkey is not this signer's
     */
    public NostrEvent sign(UnsignedEvent unsigned) {
        if (!unsigned.pubkey().equals(publicKey)) {
            throw new IllegalArgumentException(
                    "event pubkey " + unsigned.pubkey() + " is not this signer's key " + publicKey);
        }
        return unsigned.withSignature(signId(unsigned.computeId()));
    }

    /** The BIP-340 signature over the 32 id bytes. */
    public Signature signId(EventId id) {
        return new Signature(Hex.encode(signMessage(Hex.decode(id.hex()))));
    }

    /** BIP-340 signature over an arbitrary-length message (the BIP's own vectors use 0..100 byte messages). */
    byte[] signMessage(byte[] message) {
        BIP340Signer signer = new BIP340Signer(false);
        signer.init(true, keyPair, auxSource);
        signer.update(message, 0, message.length);
        return signer.generateSignature();
    }

    /** Hands out the same aux bytes on every request; only for reproducible signatures. */
    private static final class FixedAux extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private final byte[] aux;

        FixedAux(byte[] aux) {
            this.aux = aux.clone();
        }

        @Override
        public void nextBytes(byte[] bytes) {
            if (bytes.length != aux.length) {
                throw new IllegalStateException("expected a request for " + aux.length + " aux bytes, got " + bytes.length);
            }
            System.arraycopy(aux, 0, bytes, 0, aux.length);
        }
    }
}

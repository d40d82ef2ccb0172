package buzz.scheduled.adapters.relay.signature;

import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.PublicKey;
import java.math.BigInteger;
import java.security.SecureRandom;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.signers.BIP340Signer;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.math.ec.FixedPointCombMultiplier;
import org.bouncycastle.util.BigIntegers;

/**
 * A BIP-340 secret key (secp256k1 scalar d, 1 &le; d &lt; n) as 64 lowercase hex characters, the form Nostr tools
 * and the sidecar key file use. {@link #toString()} never shows the key.
 *
 * @param hex 64 lowercase hex characters
 * @throws IllegalArgumentException when {@code hex} is malformed or out of range (the message never contains it)
 */
public record SecretKey(String hex) {

    private static final ECDomainParameters SECP256K1 = BIP340Signer.getDomain();

    public SecretKey {
        Hex.requireLowercase("secret key", hex, 32);
        BigInteger d = new BigInteger(1, Hex.decode(hex));
        if (d.signum() == 0 || d.compareTo(SECP256K1.getN()) >= 0) {
            throw new IllegalArgumentException("secret key is out of range: it must be between 1 and n-1 (BIP-340)");
        }
    }

    /** A new key from {@code random} (rejection sampling, so uniform over 1..n-1). */
    public static SecretKey generate(SecureRandom random) {
        byte[] candidate = new byte[32];
        while (true) {
            random.nextBytes(candidate);
            BigInteger d = new BigInteger(1, candidate);
            if (d.signum() > 0 && d.compareTo(SECP256K1.getN()) < 0) {
                return new SecretKey(Hex.encode(candidate));
            }
        }
    }

    /** The scalar d. */
    BigInteger scalar() {
        return new BigInteger(1, Hex.decode(hex));
    }

    /** The point d·G (not normalized to even y). */
    ECPoint point() {
        return new FixedPointCombMultiplier().multiply(SECP256K1.getG(), scalar()).normalize();
    }

    /**
     * The x coordinate of d·P, where P is {@code peer} lifted to the point with even y (BIP-340 {@code lift_x}):
     * the unhashed ECDH secret NIP-44 v2 and NIP-04 derive their keys from. Fresh array per call.
     *
     * @throws IllegalArgumentException when {@code peer} is not the x coordinate of a point on secp256k1
     */
    public byte[] sharedX(PublicKey peer) {
        ECPoint lifted;
        try {
            byte[] compressed = new byte[33];
            compressed[0] = 0x02;
            System.arraycopy(Hex.decode(peer.hex()), 0, compressed, 1, 32);
            lifted = SECP256K1.getCurve().decodePoint(compressed);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("public key " + peer + " is not on secp256k1", e);
        }
        ECPoint shared = lifted.multiply(scalar()).normalize();
        if (shared.isInfinity()) {
            throw new IllegalArgumentException("public key " + peer + " gives no shared point");
        }
        return BigIntegers.asUnsignedByteArray(32, shared.getAffineXCoord().toBigInteger());
    }

    /** The x-only public key of d·G (BIP-340), as Nostr writes it. */
    public PublicKey publicKey() {
        return new PublicKey(Hex.encode(BigIntegers.asUnsignedByteArray(32, point().getAffineXCoord().toBigInteger())));
    }

    @Override
    public String toString() {
        return "SecretKey[redacted]";
    }
}

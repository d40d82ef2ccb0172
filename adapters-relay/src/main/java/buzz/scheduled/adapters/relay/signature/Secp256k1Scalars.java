package buzz.scheduled.adapters.relay.signature;

import java.math.BigInteger;

/**
 * Scalars mod n, the secp256k1 group order, for {@link Secp256k1Schnorr}: width-w NAFs and the GLV split of a scalar
 * into two of about 128 bits by the endomorphism λ·(x, y) = (β·x, y).
 */
final class Secp256k1Scalars {

    /** n, the group order. */
    static final long[] N = {0xBFD25E8CD0364141L, 0xBAAEDCE6AF48A03BL, 0xFFFFFFFFFFFFFFFEL, -1L};
    /** n as a {@link BigInteger}. */
    static final BigInteger ORDER = Secp256k1Field.toBigInteger(N);
    /** The GLV endomorphism: λ·(x, y) = (β·x, y) on secp256k1 (libsecp256k1's constants). */
    private static final BigInteger LAMBDA = new BigInteger(
            "5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72", 16);
    // A short basis of the lattice {(a, b) : a + b·λ ≡ 0 mod n}, for splitting a scalar into two of ~128 bits.
    private static final BigInteger A1 = new BigInteger("3086d221a7d46bcde86c90e49284eb15", 16);
    private static final BigInteger B1 = new BigInteger("-e4437ed6010e88286f547fa90abfe4c3", 16);
    private static final BigInteger A2 = new BigInteger("114ca50f7a8e2f3f657c1108d9d44cfd8", 16);
    private static final BigInteger B2 = A1;

    private Secp256k1Scalars() {
    }

    /**
     * k ≡ k1 + k2·λ (mod n) with |k1|, |k2| below about 2^128 (Gallant–Lambert–Vanstone; the rounding of
     * Guide to Elliptic Curve Cryptography, algorithm 3.74).
     */
    static BigInteger[] splitLambda(BigInteger k) {
        BigInteger half = ORDER.shiftRight(1);
        BigInteger c1 = B2.multiply(k).add(half).divide(ORDER);
        BigInteger c2 = B1.negate().multiply(k).add(half).divide(ORDER);
        BigInteger k1 = k.subtract(c1.multiply(A1)).subtract(c2.multiply(A2));
        BigInteger k2 = c1.multiply(B1).negate().subtract(c2.multiply(B2));
        return new BigInteger[] {k1, k2};
    }

    /** λ, for tests of the split. */
    static BigInteger lambda() {
        return LAMBDA;
    }

    /** The width-w NAF of k (below 2^256), least significant digit first; digits odd in ±(2^(w−1) − 1) or 0. */
    static int[] wnaf(long[] scalar, int width) {
        long[] k = new long[5];
        System.arraycopy(scalar, 0, k, 0, 4);
        int[] digits = new int[258];
        int length = 0;
        int mask = (1 << width) - 1;
        int i = 0;
        while (!isZero5(k)) {
            int digit = 0;
            if ((k[0] & 1) != 0) {
                digit = (int) (k[0] & mask);
                if (digit >= 1 << (width - 1)) {
                    digit -= 1 << width;
                }
                addSigned(k, -digit);
            }
            digits[i] = digit;
            if (digit != 0) {
                length = i + 1;
            }
            i++;
            shiftRightOne(k);
        }
        int[] out = new int[length];
        System.arraycopy(digits, 0, out, 0, length);
        return out;
    }

    /** k += v for a small signed v, over five limbs. */
    private static void addSigned(long[] k, long v) {
        if (v >= 0) {
            long k0 = k[0] + v;
            long carry = Long.compareUnsigned(k0, v) < 0 ? 1 : 0;
            k[0] = k0;
            for (int i = 1; i < 5 && carry != 0; i++) {
                k[i] += 1;
                carry = k[i] == 0 ? 1 : 0;
            }
        } else {
            long m = -v;
            long borrow = Long.compareUnsigned(k[0], m) < 0 ? 1 : 0;
            k[0] -= m;
            for (int i = 1; i < 5 && borrow != 0; i++) {
                borrow = k[i] == 0 ? 1 : 0;
                k[i] -= 1;
            }
        }
    }

    private static void shiftRightOne(long[] k) {
        for (int i = 0; i < 4; i++) {
            k[i] = (k[i] >>> 1) | (k[i + 1] << 63);
        }
        k[4] >>>= 1;
    }

    private static boolean isZero5(long[] k) {
        return (k[0] | k[1] | k[2] | k[3] | k[4]) == 0;
    }
}

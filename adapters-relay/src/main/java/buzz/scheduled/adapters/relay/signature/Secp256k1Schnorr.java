package buzz.scheduled.adapters.relay.signature;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * BIP-340 Schnorr verification on secp256k1 without BouncyCastle's generic point objects: field elements are four
 * 64-bit limbs in reused arrays (no allocation per field operation), points are Jacobian, and {@code s·G − e·P} is
 * one joint double-and-add (Straus) over width-w NAFs of four half-length scalars: s is split at bit 128 (odd
 * multiples of G and of 2^128·G up to 127× are computed once per JVM, window 8) and e by the GLV endomorphism
 * λ·(x, y) = (β·x, y) (odd multiples of P up to 15·P per call, Jacobian, window 5), so 128 doublings serve all four.
 * Every admission verifies two signatures (the NIP-98 header and the event), and BouncyCastle's verifier allocated
 * about half of the sidecar's garbage doing it (docs/benchmarks.md, "Admission through `serve`").
 *
 * <p>Checked against every row of the BIP-340 test vectors and differentially against BouncyCastle's
 * {@code BIP340Signer} on random keys, messages and signatures ({@code Secp256k1SchnorrTest}). Not constant time:
 * it only ever handles public data (keys, messages and signatures from the wire).
 */
final class Secp256k1Schnorr {

    /** What a verification found. */
    enum Result {
        /** The signature verifies for this key and message. */
        VALID,
        /** The key is not the x coordinate of a point on the curve (or not below p). */
        KEY_NOT_ON_CURVE,
        /** The key is a point, but the signature does not verify (or is malformed: r ≥ p, s ≥ n). */
        SIGNATURE_MISMATCH
    }

    /** 2^256 − p: the field's reduction constant. */
    private static final long C = 0x1000003D1L;
    private static final long[] P = {0xFFFFFFFEFFFFFC2FL, -1L, -1L, -1L};
    private static final long[] N = {0xBFD25E8CD0364141L, 0xBAAEDCE6AF48A03BL, 0xFFFFFFFFFFFFFFFEL, -1L};
    private static final int G_WINDOW = 8;
    private static final int P_WINDOW = 5;
    private static final BigInteger ORDER = toBigInteger(N);
    /** The GLV endomorphism: λ·(x, y) = (β·x, y) on secp256k1 (libsecp256k1's constants). */
    private static final BigInteger LAMBDA = new BigInteger(
            "5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72", 16);
    private static final long[] BETA = limbs(new BigInteger(
            "7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee", 16));
    // A short basis of the lattice {(a, b) : a + b·λ ≡ 0 mod n}, for splitting a scalar into two of ~128 bits.
    private static final BigInteger A1 = new BigInteger("3086d221a7d46bcde86c90e49284eb15", 16);
    private static final BigInteger B1 = new BigInteger("-e4437ed6010e88286f547fa90abfe4c3", 16);
    private static final BigInteger A2 = new BigInteger("114ca50f7a8e2f3f657c1108d9d44cfd8", 16);
    private static final BigInteger B2 = A1;
    /** Odd multiples 1·G, 3·G, … , 127·G in affine coordinates: [x limbs, y limbs]. */
    private static final long[][] G_TABLE;
    /** The same for 2^128·G, so s·G = s_low·G + s_high·(2^128·G) needs only 128 doublings. */
    private static final long[][] G128_TABLE;
    private static final byte[] CHALLENGE_TAG_HASH = sha256("BIP0340/challenge".getBytes(
            java.nio.charset.StandardCharsets.US_ASCII));

    static {
        long[] gx = limbs(new BigInteger("79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798", 16));
        long[] gy = limbs(new BigInteger("483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8", 16));
        Secp256k1Schnorr init = new Secp256k1Schnorr();
        G_TABLE = init.oddMultiples(gx, gy, 1 << (G_WINDOW - 2));
        init.copy4(init.rx, gx);
        init.copy4(init.ry, gy);
        init.copy4(init.rz, new long[] {1, 0, 0, 0});
        init.infinity = false;
        for (int i = 0; i < 128; i++) {
            init.doubleR();
        }
        long[] zi = new long[4];
        long[] zi2 = new long[4];
        long[] hx = new long[4];
        long[] hy = new long[4];
        init.invert(zi, init.rz);
        mul(zi2, zi, zi);
        mul(hx, init.rx, zi2);
        mul(zi2, zi2, zi);
        mul(hy, init.ry, zi2);
        G128_TABLE = init.oddMultiples(hx, hy, 1 << (G_WINDOW - 2));
    }

    // Scratch: one verification's field temporaries (a verifier object is used by one thread at a time).
    private final long[] a = new long[4];
    private final long[] b = new long[4];
    private final long[] c = new long[4];
    private final long[] d = new long[4];
    private final long[] e = new long[4];
    private final long[] f = new long[4];
    private final long[] g = new long[4];
    private final long[] h = new long[4];
    private final long[] x2 = new long[4];
    private final long[] x3 = new long[4];
    private final long[] x22 = new long[4];
    private final long[] x44 = new long[4];
    private final long[] u = new long[4];
    private final long[] v = new long[4];
    private final long[] w = new long[4];
    /** The running point (Jacobian). */
    private final long[] rx = new long[4];
    private final long[] ry = new long[4];
    private final long[] rz = new long[4];
    private boolean infinity;

    /**
     * BIP-340 verification of {@code signature} over {@code message} by the x-only {@code publicKey}.
     *
     * @param publicKey 32 bytes
     * @param message   any length (a Nostr event id: 32 bytes)
     * @param signature 64 bytes
     * @throws IllegalArgumentException when the key or signature length is wrong
     */
    static Result verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey.length != 32 || signature.length != 64) {
            throw new IllegalArgumentException("BIP-340 needs a 32-byte key and a 64-byte signature");
        }
        return new Secp256k1Schnorr().check(publicKey, message, signature);
    }

    private Result check(byte[] publicKey, byte[] message, byte[] signature) {
        long[] px = fromBytes(publicKey, 0);
        long[] py = new long[4];
        if (!lessThan(px, P) || !liftX(px, py)) {
            return Result.KEY_NOT_ON_CURVE;
        }
        long[] r = fromBytes(signature, 0);
        long[] s = fromBytes(signature, 32);
        if (!lessThan(r, P) || !lessThan(s, N)) {
            return Result.SIGNATURE_MISMATCH;
        }
        MessageDigest challenge = sha256Digest();
        challenge.update(CHALLENGE_TAG_HASH);
        challenge.update(CHALLENGE_TAG_HASH);
        challenge.update(signature, 0, 32);
        challenge.update(publicKey);
        challenge.update(message);
        long[] eScalar = fromBytes(challenge.digest(), 0);
        if (!lessThan(eScalar, N)) {
            subtract(eScalar, N);
        }
        // R = s·G − e·P with s = s1 + s2·2^128 and e ≡ e1 + e2·λ (mod n): four scalars of about 128 bits, so one
        // run of 128 doublings serves all of them.
        long[] sLow = {s[0], s[1], 0, 0};
        long[] sHigh = {s[2], s[3], 0, 0};
        BigInteger[] split = splitLambda(toBigInteger(eScalar));
        int[] s1 = wnaf(sLow, G_WINDOW);
        int[] s2 = wnaf(sHigh, G_WINDOW);
        int[] e1 = wnaf(limbs(split[0].abs()), P_WINDOW);
        int[] e2 = wnaf(limbs(split[1].abs()), P_WINDOW);
        // −e_i·P: subtract when e_i ≥ 0, add when it is negative
        boolean subtractE1 = split[0].signum() >= 0;
        boolean subtractE2 = split[1].signum() >= 0;
        long[][] pTable = oddMultiplesJacobian(px, py, 1 << (P_WINDOW - 2));
        long[][] lambdaTable = new long[pTable.length][];
        for (int i = 0; i < pTable.length; i++) {
            long[] point = pTable[i].clone();
            long[] x = new long[4];
            System.arraycopy(point, 0, x, 0, 4);
            mul(x, x, BETA);
            System.arraycopy(x, 0, point, 0, 4);
            lambdaTable[i] = point;
        }
        infinity = true;
        int length = Math.max(Math.max(s1.length, s2.length), Math.max(e1.length, e2.length));
        for (int i = length - 1; i >= 0; i--) {
            doubleR();
            int d1 = i < s1.length ? s1[i] : 0;
            if (d1 != 0) {
                addAffine(G_TABLE[Math.abs(d1) >> 1], d1 < 0);
            }
            int d2 = i < s2.length ? s2[i] : 0;
            if (d2 != 0) {
                addAffine(G128_TABLE[Math.abs(d2) >> 1], d2 < 0);
            }
            int d3 = i < e1.length ? e1[i] : 0;
            if (d3 != 0) {
                addJacobian(pTable[Math.abs(d3) >> 1], (d3 > 0) == subtractE1);
            }
            int d4 = i < e2.length ? e2[i] : 0;
            if (d4 != 0) {
                addJacobian(lambdaTable[Math.abs(d4) >> 1], (d4 > 0) == subtractE2);
            }
        }
        if (infinity) {
            return Result.SIGNATURE_MISMATCH;
        }
        invert(u, rz);
        mul(a, u, u);
        mul(b, rx, a); // affine x
        mul(c, a, u);
        mul(d, ry, c); // affine y
        if ((d[0] & 1) != 0 || !equal(b, r)) {
            return Result.SIGNATURE_MISMATCH;
        }
        return Result.VALID;
    }

    // ---- field arithmetic mod p = 2^256 − 2^32 − 977; inputs and outputs fully reduced (below p) ----

    /** r = x·y mod p; r may alias x or y. Product scanning, unrolled: 16 64×64→128-bit products. */
    private static void mul(long[] r, long[] x, long[] y) {
        long x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
        long y0 = y[0], y1 = y[1], y2 = y[2], y3 = y[3];
        long c0 = 0, c1 = 0, c2 = 0, lo, hi;
        lo = x0 * y0;
        hi = Math.unsignedMultiplyHigh(x0, y0);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long w0 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        lo = x0 * y1;
        hi = Math.unsignedMultiplyHigh(x0, y1);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x1 * y0;
        hi = Math.unsignedMultiplyHigh(x1, y0);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long w1 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        lo = x0 * y2;
        hi = Math.unsignedMultiplyHigh(x0, y2);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x1 * y1;
        hi = Math.unsignedMultiplyHigh(x1, y1);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x2 * y0;
        hi = Math.unsignedMultiplyHigh(x2, y0);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long w2 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        lo = x0 * y3;
        hi = Math.unsignedMultiplyHigh(x0, y3);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x1 * y2;
        hi = Math.unsignedMultiplyHigh(x1, y2);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x2 * y1;
        hi = Math.unsignedMultiplyHigh(x2, y1);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x3 * y0;
        hi = Math.unsignedMultiplyHigh(x3, y0);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long w3 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        lo = x1 * y3;
        hi = Math.unsignedMultiplyHigh(x1, y3);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x2 * y2;
        hi = Math.unsignedMultiplyHigh(x2, y2);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x3 * y1;
        hi = Math.unsignedMultiplyHigh(x3, y1);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long w4 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        lo = x2 * y3;
        hi = Math.unsignedMultiplyHigh(x2, y3);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x3 * y2;
        hi = Math.unsignedMultiplyHigh(x3, y2);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long w5 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        lo = x3 * y3;
        hi = Math.unsignedMultiplyHigh(x3, y3);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long w6 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        reduce(r, w0, w1, w2, w3, w4, w5, w6, c0);
    }

    /** r = w mod p for a 512-bit w (limbs w0 … w7), using 2^256 ≡ C. */
    private static void reduce(long[] r, long w0, long w1, long w2, long w3, long w4, long w5, long w6, long w7) {
        long lo = w4 * C;
        long hi = Math.unsignedMultiplyHigh(w4, C);
        long r0 = w0 + lo;
        hi += Long.compareUnsigned(r0, lo) < 0 ? 1 : 0;
        long carry = hi;
        lo = w5 * C;
        hi = Math.unsignedMultiplyHigh(w5, C);
        long r1 = w1 + lo;
        hi += Long.compareUnsigned(r1, lo) < 0 ? 1 : 0;
        r1 += carry;
        hi += Long.compareUnsigned(r1, carry) < 0 ? 1 : 0;
        carry = hi;
        lo = w6 * C;
        hi = Math.unsignedMultiplyHigh(w6, C);
        long r2 = w2 + lo;
        hi += Long.compareUnsigned(r2, lo) < 0 ? 1 : 0;
        r2 += carry;
        hi += Long.compareUnsigned(r2, carry) < 0 ? 1 : 0;
        carry = hi;
        lo = w7 * C;
        hi = Math.unsignedMultiplyHigh(w7, C);
        long r3 = w3 + lo;
        hi += Long.compareUnsigned(r3, lo) < 0 ? 1 : 0;
        r3 += carry;
        hi += Long.compareUnsigned(r3, carry) < 0 ? 1 : 0;
        // hi < 2^34: fold once more (hi·C < 2^67).
        lo = hi * C;
        hi = Math.unsignedMultiplyHigh(hi, C);
        r0 += lo;
        long k = Long.compareUnsigned(r0, lo) < 0 ? 1 : 0;
        long add = hi + k;
        r1 += add;
        k = Long.compareUnsigned(r1, add) < 0 ? 1 : 0;
        r2 += k;
        k = k == 1 && r2 == 0 ? 1 : 0;
        r3 += k;
        k = k == 1 && r3 == 0 ? 1 : 0;
        r[0] = r0;
        r[1] = r1;
        r[2] = r2;
        r[3] = r3;
        if (k != 0) {
            addSmall(r, C); // wrapped past 2^256: r is below 2^67 here, so this cannot wrap again
        }
        if (!lessThan(r, P)) {
            addSmall(r, C); // r − p = r + C − 2^256
        }
    }

    /** r += small, dropping a carry out of the top limb. */
    private static void addSmall(long[] r, long small) {
        long r0 = r[0] + small;
        long k = Long.compareUnsigned(r0, small) < 0 ? 1 : 0;
        r[0] = r0;
        for (int i = 1; i < 4 && k != 0; i++) {
            r[i] += 1;
            k = r[i] == 0 ? 1 : 0;
        }
    }

    /** r = x + y mod p. */
    private static void add(long[] r, long[] x, long[] y) {
        long k = 0;
        for (int i = 0; i < 4; i++) {
            long xi = x[i];
            long sum = xi + y[i];
            long carryOut = Long.compareUnsigned(sum, xi) < 0 ? 1 : 0;
            long withCarry = sum + k;
            if (Long.compareUnsigned(withCarry, k) < 0) {
                carryOut = 1;
            }
            r[i] = withCarry;
            k = carryOut;
        }
        if (k != 0 || !lessThan(r, P)) {
            addSmall(r, C);
        }
    }

    /** r = x − y mod p. */
    private static void sub(long[] r, long[] x, long[] y) {
        long borrow = 0;
        for (int i = 0; i < 4; i++) {
            long xi = x[i];
            long yi = y[i];
            long diff = xi - yi - borrow;
            borrow = (Long.compareUnsigned(xi, yi) < 0 || (borrow == 1 && xi == yi)) ? 1 : 0;
            r[i] = diff;
        }
        if (borrow != 0) {
            // x − y + 2^256 − C = x − y + p
            long r0 = r[0] - C;
            long k = Long.compareUnsigned(r[0], C) < 0 ? 1 : 0;
            r[0] = r0;
            for (int i = 1; i < 4 && k != 0; i++) {
                k = r[i] == 0 ? 1 : 0;
                r[i] -= 1;
            }
        }
    }

    private void square(long[] r, long[] x) {
        mul(r, x, x);
    }

    private void squareTimes(long[] r, long[] x, int times) {
        copy(r, x);
        for (int i = 0; i < times; i++) {
            mul(r, r, r);
        }
    }

    /**
     * x2 = a^(2^2−1), x3 = a^(2^3−1), x22 = a^(2^22−1), x44 = a^(2^44−1), and {@code out} = a^(2^223−1):
     * the common head of the inversion and square-root chains (libsecp256k1's addition chain).
     */
    private void chainHead(long[] out, long[] x) {
        square(x2, x);
        mul(x2, x2, x);
        square(x3, x2);
        mul(x3, x3, x);
        squareTimes(g, x3, 3);
        mul(g, g, x3); // x6
        squareTimes(h, g, 3);
        mul(h, h, x3); // x9
        squareTimes(g, h, 2);
        mul(g, g, x2); // x11
        squareTimes(x22, g, 11);
        mul(x22, x22, g);
        squareTimes(x44, x22, 22);
        mul(x44, x44, x22);
        squareTimes(g, x44, 44);
        mul(g, g, x44); // x88
        squareTimes(h, g, 88);
        mul(h, h, g); // x176
        squareTimes(g, h, 44);
        mul(g, g, x44); // x220
        squareTimes(out, g, 3);
        mul(out, out, x3); // x223
    }

    /** r = x^(p−2) = 1/x mod p (x ≠ 0). */
    private void invert(long[] r, long[] x) {
        long[] acc = f;
        chainHead(acc, x);
        squareTimes(acc, acc, 23);
        mul(acc, acc, x22);
        squareTimes(acc, acc, 5);
        mul(acc, acc, x);
        squareTimes(acc, acc, 3);
        mul(acc, acc, x2);
        squareTimes(acc, acc, 2);
        mul(r, acc, x);
    }

    /** y = the even square root of x³ + 7, when there is one (BIP-340 lift_x); false otherwise. */
    private boolean liftX(long[] x, long[] y) {
        long[] rhs = e;
        square(rhs, x);
        mul(rhs, rhs, x);
        long[] seven = {7, 0, 0, 0};
        add(rhs, rhs, seven);
        long[] acc = f;
        chainHead(acc, rhs);
        squareTimes(acc, acc, 23);
        mul(acc, acc, x22);
        squareTimes(acc, acc, 6);
        mul(acc, acc, x2);
        squareTimes(acc, acc, 2); // rhs^((p+1)/4)
        square(a, acc);
        if (!equal(a, rhs)) {
            return false;
        }
        if ((acc[0] & 1) != 0) {
            sub(y, new long[4], acc);
        } else {
            copy(y, acc);
        }
        return true;
    }

    // ---- points ----

    /** R = 2R (Jacobian, a = 0: dbl-2009-l). */
    private void doubleR() {
        if (infinity) {
            return;
        }
        square(a, rx);        // A = X²
        square(b, ry);        // B = Y²
        square(c, b);         // C = B²
        add(d, rx, b);
        square(d, d);
        sub(d, d, a);
        sub(d, d, c);
        add(d, d, d);         // D = 2((X + B)² − A − C)
        add(e, a, a);
        add(e, e, a);         // E = 3A
        square(f, e);         // F = E²
        mul(rz, ry, rz);
        add(rz, rz, rz);      // Z3 = 2·Y·Z
        sub(rx, f, d);
        sub(rx, rx, d);       // X3 = F − 2D
        sub(g, d, rx);
        mul(g, e, g);
        add(c, c, c);
        add(c, c, c);
        add(c, c, c);         // 8C
        sub(ry, g, c);        // Y3 = E(D − X3) − 8C
    }

    /** R = R + (x, ±y) for an affine point (madd-2007-bl), handling infinity and equal points. */
    private void addAffine(long[] point, boolean negate) {
        long[] px = a;
        long[] py = b;
        System.arraycopy(point, 0, px, 0, 4);
        System.arraycopy(point, 4, py, 0, 4);
        if (negate) {
            sub(py, new long[4], py);
        }
        if (infinity) {
            copy(rx, px);
            copy(ry, py);
            rz[0] = 1;
            rz[1] = 0;
            rz[2] = 0;
            rz[3] = 0;
            infinity = false;
            return;
        }
        square(c, rz);        // Z1Z1
        mul(d, px, c);        // U2
        mul(e, rz, c);
        mul(e, py, e);        // S2
        sub(d, d, rx);        // H
        sub(e, e, ry);
        add(e, e, e);         // r = 2(S2 − Y1)
        if (isZero(d)) {
            if (isZero(e)) {
                doubleR();
            } else {
                infinity = true;
            }
            return;
        }
        square(f, d);         // HH
        add(g, f, f);
        add(g, g, g);         // I = 4HH
        mul(h, d, g);         // J = H·I
        mul(g, rx, g);        // V = X1·I
        // Z3 = (Z1 + H)² − Z1Z1 − HH
        add(u, rz, d);
        square(u, u);
        sub(u, u, c);
        sub(rz, u, f);
        finishAddition(e, ry);
    }

    /**
     * The affine odd multiples 1·Q, 3·Q, …, (2·count − 1)·Q: each [x limbs, y limbs]; the Jacobian ones made affine
     * together with one inversion (Montgomery's trick). For the tables of G, built once.
     */
    private long[][] oddMultiples(long[] qx, long[] qy, int count) {
        long[][] jacobian = oddMultiplesJacobian(qx, qy, count);
        long[][] table = new long[count][8];
        // prefix products of the Z coordinates, one inversion, then back down
        long[][] prefix = new long[count][4];
        long[] z = new long[4];
        long[] zi2 = new long[4];
        long[] coordinate = new long[4];
        System.arraycopy(jacobian[0], 8, prefix[0], 0, 4);
        for (int i = 1; i < count; i++) {
            System.arraycopy(jacobian[i], 8, z, 0, 4);
            mul(prefix[i], prefix[i - 1], z);
        }
        long[] inverse = new long[4];
        invert(inverse, prefix[count - 1]);
        for (int i = count - 1; i >= 0; i--) {
            long[] zInverse = new long[4];
            if (i > 0) {
                mul(zInverse, inverse, prefix[i - 1]);
                System.arraycopy(jacobian[i], 8, z, 0, 4);
                mul(inverse, inverse, z);
            } else {
                copy(zInverse, inverse);
            }
            mul(zi2, zInverse, zInverse);
            System.arraycopy(jacobian[i], 0, z, 0, 4);
            mul(coordinate, z, zi2);
            System.arraycopy(coordinate, 0, table[i], 0, 4);
            mul(zi2, zi2, zInverse);
            System.arraycopy(jacobian[i], 4, z, 0, 4);
            mul(coordinate, z, zi2);
            System.arraycopy(coordinate, 0, table[i], 4, 4);
        }
        return table;
    }

    /**
     * R = R + (±Q) for a Jacobian Q = [X, Y, Z limbs] (add-2007-bl), handling infinity and equal points.
     */
    private void addJacobian(long[] q, boolean negate) {
        long[] qx = v;
        long[] qy = w;
        System.arraycopy(q, 0, qx, 0, 4);
        System.arraycopy(q, 4, qy, 0, 4);
        long[] qz = x44; // free while no inversion runs
        System.arraycopy(q, 8, qz, 0, 4);
        if (negate) {
            sub(qy, new long[4], qy);
        }
        if (infinity) {
            copy(rx, qx);
            copy(ry, qy);
            copy(rz, qz);
            infinity = false;
            return;
        }
        square(a, rz);        // Z1Z1
        square(b, qz);        // Z2Z2
        mul(c, rx, b);        // U1
        mul(d, qx, a);        // U2
        mul(e, ry, qz);
        mul(e, e, b);         // S1
        mul(f, qy, rz);
        mul(f, f, a);         // S2
        sub(d, d, c);         // H
        sub(f, f, e);
        add(f, f, f);         // r = 2(S2 − S1)
        if (isZero(d)) {
            if (isZero(f)) {
                doubleR();
            } else {
                infinity = true;
            }
            return;
        }
        // Z3 = ((Z1 + Z2)² − Z1Z1 − Z2Z2)·H
        add(u, rz, qz);
        square(u, u);
        sub(u, u, a);
        sub(u, u, b);
        mul(rz, u, d);
        add(g, d, d);
        square(g, g);         // I = (2H)²
        mul(h, d, g);         // J = H·I
        mul(g, c, g);         // V = U1·I
        finishAddition(f, e);
    }

    /**
     * The common end of both additions, with J in {@code h} and V in {@code g}: X3 = r² − J − 2V and
     * Y3 = r(V − X3) − 2·S1·J, where S1 is Y1 scaled to the sum's Z (Y1 itself for a mixed addition).
     */
    private void finishAddition(long[] r, long[] s1) {
        square(u, r);
        sub(u, u, h);
        sub(u, u, g);
        sub(rx, u, g);
        sub(g, g, rx);
        mul(g, r, g);
        mul(h, s1, h);
        add(h, h, h);
        sub(ry, g, h);
    }

    /** The Jacobian odd multiples 1·Q, 3·Q, …, (2·count − 1)·Q of an affine Q: each [X, Y, Z limbs]. */
    private long[][] oddMultiplesJacobian(long[] qx, long[] qy, int count) {
        long[][] table = new long[count][12];
        copy(rx, qx);
        copy(ry, qy);
        rz[0] = 1;
        rz[1] = 0;
        rz[2] = 0;
        rz[3] = 0;
        infinity = false;
        doubleR();
        long[] twice = new long[12];
        System.arraycopy(rx, 0, twice, 0, 4);
        System.arraycopy(ry, 0, twice, 4, 4);
        System.arraycopy(rz, 0, twice, 8, 4);
        copy(rx, qx);
        copy(ry, qy);
        rz[0] = 1;
        rz[1] = 0;
        rz[2] = 0;
        rz[3] = 0;
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                addJacobian(twice, false);
            }
            if (infinity) {
                throw new IllegalStateException("a small multiple of a curve point was infinity");
            }
            System.arraycopy(rx, 0, table[i], 0, 4);
            System.arraycopy(ry, 0, table[i], 4, 4);
            System.arraycopy(rz, 0, table[i], 8, 4);
        }
        return table;
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

    private void copy4(long[] to, long[] from) {
        copy(to, from);
    }

    // ---- scalars and limbs ----

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

    private static boolean isZero(long[] x) {
        return (x[0] | x[1] | x[2] | x[3]) == 0;
    }

    private static boolean equal(long[] x, long[] y) {
        return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
    }

    /** Unsigned x < y over four limbs. */
    private static boolean lessThan(long[] x, long[] y) {
        for (int i = 3; i >= 0; i--) {
            if (x[i] != y[i]) {
                return Long.compareUnsigned(x[i], y[i]) < 0;
            }
        }
        return false;
    }

    /** x −= y over four limbs (x ≥ y). */
    private static void subtract(long[] x, long[] y) {
        long borrow = 0;
        for (int i = 0; i < 4; i++) {
            long xi = x[i];
            long yi = y[i];
            x[i] = xi - yi - borrow;
            borrow = (Long.compareUnsigned(xi, yi) < 0 || (borrow == 1 && xi == yi)) ? 1 : 0;
        }
    }

    private static void copy(long[] to, long[] from) {
        System.arraycopy(from, 0, to, 0, 4);
    }

    /** Big-endian 32 bytes at {@code offset} as four little-endian limbs. */
    static long[] fromBytes(byte[] bytes, int offset) {
        long[] limbs = new long[4];
        for (int i = 0; i < 4; i++) {
            long limb = 0;
            int start = offset + 24 - 8 * i;
            for (int j = 0; j < 8; j++) {
                limb = (limb << 8) | (bytes[start + j] & 0xFF);
            }
            limbs[i] = limb;
        }
        return limbs;
    }

    static long[] limbs(BigInteger value) {
        byte[] bytes = new byte[32];
        byte[] raw = value.toByteArray();
        int length = Math.min(raw.length, 32);
        System.arraycopy(raw, raw.length - length, bytes, 32 - length, length);
        return fromBytes(bytes, 0);
    }

    static BigInteger toBigInteger(long[] limbs) {
        StringBuilder hex = new StringBuilder(64);
        for (int i = 3; i >= 0; i--) {
            hex.append(HexFormat.of().toHexDigits(limbs[i]));
        }
        return new BigInteger(hex.toString(), 16);
    }

    /** x·y mod p, for tests of the field arithmetic. */
    static long[] fieldMul(long[] x, long[] y) {
        long[] r = new long[4];
        mul(r, x, y);
        return r;
    }

    /** 1/x mod p, for tests. */
    static long[] fieldInvert(long[] x) {
        long[] r = new long[4];
        new Secp256k1Schnorr().invert(r, x);
        return r;
    }

    /** x + y and x − y mod p, for tests. */
    static long[][] fieldAddSub(long[] x, long[] y) {
        long[] sum = new long[4];
        long[] difference = new long[4];
        add(sum, x, y);
        sub(difference, x, y);
        return new long[][] {sum, difference};
    }

    private static MessageDigest sha256Digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        return sha256Digest().digest(bytes);
    }
}

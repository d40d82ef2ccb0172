package buzz.scheduled.adapters.relay.signature;

import java.math.BigInteger;
import java.util.HexFormat;

/**
 * Arithmetic mod p = 2^256 − 2^32 − 977, the secp256k1 field, on four little-endian 64-bit limbs in arrays the caller
 * owns (no allocation per operation), and the four-limb helpers the rest of {@link Secp256k1Schnorr} shares. Inputs and
 * outputs of the field operations are fully reduced (below p).
 */
final class Secp256k1Field {

    /** 2^256 − p: the field's reduction constant. */
    static final long C = 0x1000003D1L;
    /** p. */
    static final long[] P = {0xFFFFFFFEFFFFFC2FL, -1L, -1L, -1L};

    private Secp256k1Field() {
    }

    /** r = x·y mod p; r may alias x or y. Product scanning, unrolled: 16 64×64→128-bit products. */
    static void mul(long[] r, long[] x, long[] y) {
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

    /**
     * r = x² mod p; r may alias x. The six products x_i·x_j (i < j) once, doubled by a shift, plus the four
     * squares x_i²: 10 64×64→128-bit products where {@link #mul} takes 16.
     */
    static void sqr(long[] r, long[] x) {
        long x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
        long c1 = 0, c2 = 0, lo, hi;
        // t = Σ_{i<j} x_i·x_j·2^(64(i+j)), column by column (t0 = 0)
        lo = x0 * x1;
        hi = Math.unsignedMultiplyHigh(x0, x1);
        long t1 = lo;
        long c0 = hi;
        lo = x0 * x2;
        hi = Math.unsignedMultiplyHigh(x0, x2);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long t2 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        lo = x0 * x3;
        hi = Math.unsignedMultiplyHigh(x0, x3);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        lo = x1 * x2;
        hi = Math.unsignedMultiplyHigh(x1, x2);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long t3 = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
        lo = x1 * x3;
        hi = Math.unsignedMultiplyHigh(x1, x3);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        c2 += Long.compareUnsigned(c1, hi) < 0 ? 1 : 0;
        long t4 = c0;
        c0 = c1;
        c1 = c2;
        lo = x2 * x3;
        hi = Math.unsignedMultiplyHigh(x2, x3);
        c0 += lo;
        hi += Long.compareUnsigned(c0, lo) < 0 ? 1 : 0;
        c1 += hi;
        long t5 = c0;
        long t6 = c1; // t < 2^448, so nothing is left above t6
        // w = 2t + Σ x_i²·2^(128i)
        long w7 = t6 >>> 63;
        long w6 = (t6 << 1) | (t5 >>> 63);
        long w5 = (t5 << 1) | (t4 >>> 63);
        long w4 = (t4 << 1) | (t3 >>> 63);
        long w3 = (t3 << 1) | (t2 >>> 63);
        long w2 = (t2 << 1) | (t1 >>> 63);
        long w1 = t1 << 1;
        long w0 = x0 * x0;
        long d = Math.unsignedMultiplyHigh(x0, x0);
        long sum = w1 + d;
        long k = Long.compareUnsigned(sum, d) < 0 ? 1 : 0;
        w1 = sum;
        d = x1 * x1;
        sum = w2 + d + k;
        k = Long.compareUnsigned(sum, d) < 0 || (k == 1 && sum == d) ? 1 : 0;
        w2 = sum;
        d = Math.unsignedMultiplyHigh(x1, x1);
        sum = w3 + d + k;
        k = Long.compareUnsigned(sum, d) < 0 || (k == 1 && sum == d) ? 1 : 0;
        w3 = sum;
        d = x2 * x2;
        sum = w4 + d + k;
        k = Long.compareUnsigned(sum, d) < 0 || (k == 1 && sum == d) ? 1 : 0;
        w4 = sum;
        d = Math.unsignedMultiplyHigh(x2, x2);
        sum = w5 + d + k;
        k = Long.compareUnsigned(sum, d) < 0 || (k == 1 && sum == d) ? 1 : 0;
        w5 = sum;
        d = x3 * x3;
        sum = w6 + d + k;
        k = Long.compareUnsigned(sum, d) < 0 || (k == 1 && sum == d) ? 1 : 0;
        w6 = sum;
        w7 += Math.unsignedMultiplyHigh(x3, x3) + k; // x² < 2^512: no carry out
        reduce(r, w0, w1, w2, w3, w4, w5, w6, w7);
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
    static void add(long[] r, long[] x, long[] y) {
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

    /** r = x − y mod p; branch-free borrows (Hacker's Delight 2-16). */
    static void sub(long[] r, long[] x, long[] y) {
        long x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
        long y0 = y[0], y1 = y[1], y2 = y[2], y3 = y[3];
        long d0 = x0 - y0;
        long b = ((~x0 & y0) | (~(x0 ^ y0) & d0)) >>> 63;
        long d1 = x1 - y1 - b;
        b = ((~x1 & y1) | (~(x1 ^ y1) & d1)) >>> 63;
        long d2 = x2 - y2 - b;
        b = ((~x2 & y2) | (~(x2 ^ y2) & d2)) >>> 63;
        long d3 = x3 - y3 - b;
        b = ((~x3 & y3) | (~(x3 ^ y3) & d3)) >>> 63;
        // On a borrow the difference is x − y + 2^256; x − y + p is C less, and at least C + 1, so no borrow out.
        long c = C & -b;
        long e0 = d0 - c;
        b = ((~d0 & c) | (~(d0 ^ c) & e0)) >>> 63;
        long e1 = d1 - b;
        b = ((~d1 & b) | (~(d1 ^ b) & e1)) >>> 63;
        long e2 = d2 - b;
        b = ((~d2 & b) | (~(d2 ^ b) & e2)) >>> 63;
        r[0] = e0;
        r[1] = e1;
        r[2] = e2;
        r[3] = d3 - b;
    }

    // ---- four-limb helpers ----

    /** Whether x is zero over four limbs. */
    static boolean isZero(long[] x) {
        return (x[0] | x[1] | x[2] | x[3]) == 0;
    }

    /** Whether x and y are equal over four limbs. */
    static boolean equal(long[] x, long[] y) {
        return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
    }

    /** Unsigned x < y over four limbs. */
    static boolean lessThan(long[] x, long[] y) {
        for (int i = 3; i >= 0; i--) {
            if (x[i] != y[i]) {
                return Long.compareUnsigned(x[i], y[i]) < 0;
            }
        }
        return false;
    }

    /** x −= y over four limbs (x ≥ y). */
    static void subtract(long[] x, long[] y) {
        long borrow = 0;
        for (int i = 0; i < 4; i++) {
            long xi = x[i];
            long yi = y[i];
            x[i] = xi - yi - borrow;
            borrow = (Long.compareUnsigned(xi, yi) < 0 || (borrow == 1 && xi == yi)) ? 1 : 0;
        }
    }

    /** to = from over four limbs. */
    static void copy(long[] to, long[] from) {
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

    /** The four limbs of a value below 2^256. */
    static long[] limbs(BigInteger value) {
        byte[] bytes = new byte[32];
        byte[] raw = value.toByteArray();
        int length = Math.min(raw.length, 32);
        System.arraycopy(raw, raw.length - length, bytes, 32 - length, length);
        return fromBytes(bytes, 0);
    }

    /** The value of four limbs. */
    static BigInteger toBigInteger(long[] limbs) {
        StringBuilder hex = new StringBuilder(64);
        for (int i = 3; i >= 0; i--) {
            hex.append(HexFormat.of().toHexDigits(limbs[i]));
        }
        return new BigInteger(hex.toString(), 16);
    }
}

package buzz.scheduled.adapters.relay.signature;

import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.add;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.copy;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.equal;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.isZero;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.mul;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.sqr;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.sub;

/**
 * One running secp256k1 point R in Jacobian coordinates, with the field temporaries its doubling, additions,
 * inversion and square root reuse (no allocation per operation), for {@link Secp256k1Schnorr}. Used by one thread
 * at a time.
 */
final class Secp256k1Point {

    /** 0, never written: the minuend of a negation. */
    private static final long[] ZERO = new long[4];

    // Scratch: the field temporaries.
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

    /** Whether R is the point at infinity. */
    boolean isInfinity() {
        return infinity;
    }

    /** R = the point at infinity. */
    void setInfinity() {
        infinity = true;
    }

    /** R = the affine (x, y). */
    void setAffine(long[] x, long[] y) {
        copy(rx, x);
        copy(ry, y);
        rz[0] = 1;
        rz[1] = 0;
        rz[2] = 0;
        rz[3] = 0;
        infinity = false;
    }

    /** R's affine coordinates into {@code x} and {@code y} (R not infinity). */
    void toAffine(long[] x, long[] y) {
        invert(u, rz);
        mul(a, u, u);
        mul(x, rx, a);
        mul(c, a, u);
        mul(y, ry, c);
    }

    /** Whether R (not infinity) has an even affine y and the affine x {@code r} (BIP-340's last check). */
    boolean evenYWithX(long[] r) {
        toAffine(b, d);
        return (d[0] & 1) == 0 && equal(b, r);
    }

    private void square(long[] r, long[] x) {
        sqr(r, x);
    }

    private void squareTimes(long[] r, long[] x, int times) {
        copy(r, x);
        for (int i = 0; i < times; i++) {
            sqr(r, r);
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
    void invert(long[] r, long[] x) {
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
    boolean liftX(long[] x, long[] y) {
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
            sub(y, ZERO, acc);
        } else {
            copy(y, acc);
        }
        return true;
    }

    // ---- points ----

    /** R = 2R (Jacobian, a = 0: dbl-2009-l). */
    void doubleR() {
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
    void addAffine(long[] point, boolean negate) {
        long[] px = a;
        long[] py = b;
        System.arraycopy(point, 0, px, 0, 4);
        System.arraycopy(point, 4, py, 0, 4);
        if (negate) {
            sub(py, ZERO, py);
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
     * together with one inversion ({@link #affine}). For the tables of G, built once, and of a key.
     */
    long[][] oddMultiples(long[] qx, long[] qy, int count) {
        return affine(oddMultiplesJacobian(qx, qy, count));
    }

    /**
     * The affine [x limbs, y limbs] of Jacobian points [X, Y, Z limbs], none of them infinity, with one inversion for
     * all of them (Montgomery's trick: prefix products of the Z coordinates, one inversion, then back down at three
     * multiplications a point).
     */
    long[][] affine(long[][] jacobian) {
        int count = jacobian.length;
        long[][] table = new long[count][8];
        long[][] prefix = new long[count][4];
        long[] z = new long[4];
        long[] zi2 = new long[4];
        long[] coordinate = new long[4];
        long[] zInverse = new long[4];
        System.arraycopy(jacobian[0], 8, prefix[0], 0, 4);
        for (int i = 1; i < count; i++) {
            System.arraycopy(jacobian[i], 8, z, 0, 4);
            mul(prefix[i], prefix[i - 1], z);
        }
        long[] inverse = new long[4];
        invert(inverse, prefix[count - 1]);
        for (int i = count - 1; i >= 0; i--) {
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
    void addJacobian(long[] q, boolean negate) {
        long[] qx = v;
        long[] qy = w;
        System.arraycopy(q, 0, qx, 0, 4);
        System.arraycopy(q, 4, qy, 0, 4);
        long[] qz = x44; // free while no inversion runs
        System.arraycopy(q, 8, qz, 0, 4);
        if (negate) {
            sub(qy, ZERO, qy);
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
    long[][] oddMultiplesJacobian(long[] qx, long[] qy, int count) {
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
}

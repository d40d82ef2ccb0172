package buzz.scheduled.adapters.relay.signature;

import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.P;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.fromBytes;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.lessThan;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.mul;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Field.subtract;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Scalars.N;
import static buzz.scheduled.adapters.relay.signature.Secp256k1Scalars.ORDER;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * BIP-340 Schnorr verification on secp256k1 without BouncyCastle's generic point objects: field elements are four
 * 64-bit limbs in reused arrays (no allocation per field operation), points are Jacobian, and {@code s·G − e·P} is
 * one joint double-and-add (Straus) over width-w NAFs of four half-length scalars: s is split at bit 128 (odd
 * multiples of G and of 2^128·G up to 127× are computed once per JVM, window 8) and e by the GLV endomorphism
 * λ·(x, y) = (β·x, y) (affine odd multiples of P up to 15·P, window 5, kept per key: {@link KeyTables}), so 128
 * doublings serve all four.
 * Every admission verifies two signatures (the NIP-98 header and the event), and BouncyCastle's verifier allocated
 * about half of the sidecar's garbage doing it (docs/benchmarks.md, "Admission through `serve`").
 *
 * <p>Checked against every row of the BIP-340 test vectors and differentially against BouncyCastle's
 * {@code BIP340Signer} on random keys, messages and signatures ({@code Secp256k1SchnorrTest}). Not constant time:
 * it only ever handles public data (keys, messages and signatures from the wire).
 *
 * <p>The parts: {@link Secp256k1Field} (arithmetic mod p and four-limb helpers), {@link Secp256k1Point} (the running
 * Jacobian point, its doubling and additions, inversion and square root) and {@link Secp256k1Scalars} (NAFs and the
 * GLV split); this class holds the tables of G and the BIP-340 check.
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

    /** What a batch verification found. */
    enum BatchResult {
        /** Every signature verifies for the key and its message (but with probability about 2^-128). */
        VALID,
        /** The key is not the x coordinate of a point on the curve (or not below p). */
        KEY_NOT_ON_CURVE,
        /** Some signature is malformed: r ≥ p, r not the x coordinate of a point, or s ≥ n. */
        MALFORMED_SIGNATURE,
        /** The batch equation does not hold: at least one signature does not verify. */
        MISMATCH
    }

    private static final int G_WINDOW = 8;
    private static final int P_WINDOW = 5;
    /** The batch's multipliers are 128-bit: width-4 NAFs over the odd multiples R, 3·R, 5·R, 7·R of each R. */
    private static final int R_WINDOW = 4;
    private static final int R_MULTIPLES = 1 << (R_WINDOW - 2);
    /** Part of every batch's seed, so nobody outside this process can compute the multipliers of a batch. */
    private static final byte[] BATCH_SECRET = secret();
    private static final long[][] NO_TABLES = new long[0][];
    private static final int[][] NO_DIGITS = new int[0][];
    private static final long[] BETA = limbs(new BigInteger(
            "7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee", 16));
    /** Odd multiples 1·G, 3·G, … , 127·G in affine coordinates: [x limbs, y limbs]. */
    private static final long[][] G_TABLE;
    /** The same for 2^128·G, so s·G = s_low·G + s_high·(2^128·G) needs only 128 doublings. */
    private static final long[][] G128_TABLE;
    private static final byte[] CHALLENGE_TAG_HASH = sha256("BIP0340/challenge".getBytes(
            java.nio.charset.StandardCharsets.US_ASCII));

    static {
        long[] gx = limbs(new BigInteger("79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798", 16));
        long[] gy = limbs(new BigInteger("483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8", 16));
        Secp256k1Point init = new Secp256k1Point();
        G_TABLE = init.oddMultiples(gx, gy, 1 << (G_WINDOW - 2));
        init.setAffine(gx, gy);
        for (int i = 0; i < 128; i++) {
            init.doubleR();
        }
        long[] hx = new long[4];
        long[] hy = new long[4];
        init.toAffine(hx, hy);
        G128_TABLE = init.oddMultiples(hx, hy, 1 << (G_WINDOW - 2));
    }

    /** The running point and the field temporaries of one verification. */
    private final Secp256k1Point point = new Secp256k1Point();

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

    /**
     * BIP-340 batch verification ("Batch Verification" in BIP-340) of signatures by one x-only key: whether
     * (Σ aᵢ·sᵢ)·G = Σ aᵢ·Rᵢ + (Σ aᵢ·eᵢ)·P, with a₀ = 1 and the other aᵢ 128-bit multipliers drawn from SHA-256 of a
     * per-process secret and every input (BIP-340 seeds them from a hash of the inputs; the secret keeps anyone from
     * computing them ahead). All the terms are one joint multiplication sharing 128 doublings, the Rᵢ's tables made
     * affine with one inversion, so a signature costs a square root and about 30 additions instead of a whole
     * verification (about a third of its time). {@link BatchResult#VALID} when every signature verifies; when one
     * does not, a batch passes with probability about 2^-128 (the small-exponents test of Bellare, Garay and Rabin,
     * 1998). Anything else says only that at least one signature (or the key) is bad: the caller verifies each alone
     * to tell which.
     *
     * @param publicKey  32 bytes
     * @param messages   one or more messages of any length (Nostr event ids: 32 bytes)
     * @param signatures 64 bytes each, one per message
     * @throws IllegalArgumentException when a length is wrong or the arrays differ in length
     */
    static BatchResult verifyBatch(byte[] publicKey, byte[][] messages, byte[][] signatures) {
        if (publicKey.length != 32 || messages.length == 0 || messages.length != signatures.length) {
            throw new IllegalArgumentException("BIP-340 batch verification needs a 32-byte key and one signature per"
                    + " message, at least one");
        }
        for (byte[] signature : signatures) {
            if (signature.length != 64) {
                throw new IllegalArgumentException("BIP-340 signatures are 64 bytes");
            }
        }
        return new Secp256k1Schnorr().checkBatch(publicKey, messages, signatures);
    }

    private BatchResult checkBatch(byte[] publicKey, byte[][] messages, byte[][] signatures) {
        KeyTables key = keyTables(fromBytes(publicKey, 0));
        if (key == null) {
            return BatchResult.KEY_NOT_ON_CURVE;
        }
        int count = messages.length;
        MessageDigest sha256 = sha256Digest();
        byte[] seed = batchSeed(sha256, publicKey, messages, signatures);
        long[][] rMultiples = new long[count * R_MULTIPLES][];
        int[][] aDigits = new int[count][];
        BigInteger sSum = BigInteger.ZERO;
        BigInteger eSum = BigInteger.ZERO;
        long[] ry = new long[4];
        for (int i = 0; i < count; i++) {
            byte[] signature = signatures[i];
            long[] r = fromBytes(signature, 0);
            long[] s = fromBytes(signature, 32);
            // Each of these must reject before any arithmetic: an r without a point would be added with a stale y
            // (a point off the curve); the tests pin each one through its answer.
            if (!lessThan(r, P) || !lessThan(s, N) || !point.liftX(r, ry)) {
                return BatchResult.MALFORMED_SIGNATURE;
            }
            long[] a = multiplier(sha256, seed, i);
            BigInteger aValue = toBigInteger(a);
            sSum = sSum.add(aValue.multiply(toBigInteger(s)));
            eSum = eSum.add(aValue.multiply(toBigInteger(challenge(sha256, signature, publicKey, messages[i]))));
            aDigits[i] = wnaf(a, R_WINDOW);
            System.arraycopy(point.oddMultiplesJacobian(r, ry, R_MULTIPLES), 0, rMultiples, i * R_MULTIPLES,
                    R_MULTIPLES);
        }
        long[][] rTables = point.affine(rMultiples);
        // 0 = s·G − e·P − Σ aᵢ·Rᵢ, with s and e split as in a single verification
        joint(limbs(sSum.mod(ORDER)), limbs(eSum.mod(ORDER)), key, rTables, aDigits);
        if (!point.isInfinity()) {
            return BatchResult.MISMATCH;
        }
        key.remember(); // only keys someone has signed with
        return BatchResult.VALID;
    }

    /**
     * The tables of the key whose x coordinate is {@code px}: the cached ones, or new ones (kept only once a signature
     * by the key verified: {@link KeyTables#remember}); null when px is not below p or not the x of a point (lift_x).
     */
    private KeyTables keyTables(long[] px) {
        if (!lessThan(px, P)) {
            return null;
        }
        int slot = KeyTables.slot(px);
        KeyTables cached = KeyTables.cached(px, slot);
        if (cached != null) {
            return cached;
        }
        long[] py = new long[4];
        if (!point.liftX(px, py)) {
            return null;
        }
        return KeyTables.of(px, slot, point.oddMultiples(px, py, 1 << (P_WINDOW - 2)));
    }

    /** SHA-256 of the batch secret, the key, and every message (its length first) and signature, in order. */
    private static byte[] batchSeed(MessageDigest sha256, byte[] publicKey, byte[][] messages, byte[][] signatures) {
        sha256.update(BATCH_SECRET);
        sha256.update(publicKey);
        for (int i = 0; i < messages.length; i++) {
            sha256.update(bigEndian(messages[i].length));
            sha256.update(messages[i]);
            sha256.update(signatures[i]);
        }
        return sha256.digest();
    }

    /** a₀ = 1; aᵢ = the first 16 bytes of SHA-256(seed ‖ i) as a 128-bit number (1 in its stead if it is 0). */
    private static long[] multiplier(MessageDigest sha256, byte[] seed, int index) {
        if (index == 0) {
            return new long[] {1, 0, 0, 0};
        }
        sha256.update(seed);
        sha256.update(bigEndian(index));
        long[] value = fromBytes(sha256.digest(), 0); // limbs 3 and 2 hold the first 16 bytes
        long[] a = {value[2], value[3], 0, 0};
        if ((a[0] | a[1]) == 0) {
            a[0] = 1;
        }
        return a;
    }

    private static byte[] bigEndian(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    /** e = int(SHA-256(tag ‖ tag ‖ r ‖ P ‖ m)) mod n (BIP-340's challenge), four limbs. */
    private static long[] challenge(MessageDigest sha256, byte[] signature, byte[] publicKey, byte[] message) {
        sha256.update(CHALLENGE_TAG_HASH);
        sha256.update(CHALLENGE_TAG_HASH);
        sha256.update(signature, 0, 32);
        sha256.update(publicKey);
        sha256.update(message);
        long[] e = fromBytes(sha256.digest(), 0);
        if (!lessThan(e, N)) {
            subtract(e, N);
        }
        return e;
    }

    private Result check(byte[] publicKey, byte[] message, byte[] signature) {
        KeyTables key = keyTables(fromBytes(publicKey, 0));
        if (key == null) {
            return Result.KEY_NOT_ON_CURVE;
        }
        long[] r = fromBytes(signature, 0);
        long[] s = fromBytes(signature, 32);
        if (!lessThan(r, P) || !lessThan(s, N)) {
            return Result.SIGNATURE_MISMATCH;
        }
        joint(s, challenge(sha256Digest(), signature, publicKey, message), key, NO_TABLES, NO_DIGITS);
        if (point.isInfinity() || !point.evenYWithX(r)) {
            return Result.SIGNATURE_MISMATCH;
        }
        key.remember(); // only keys someone has signed with
        return Result.VALID;
    }

    /**
     * The running point = s·G − e·P − Σ aᵢ·Rᵢ, with s = s1 + s2·2^128 and e ≡ e1 + e2·λ (mod n): four scalars of about
     * 128 bits, and the aᵢ too, so one run of about 128 doublings serves all of them.
     *
     * @param s       below n, four limbs
     * @param e       below n, four limbs
     * @param key     the tables of P
     * @param rTables the affine odd multiples R, 3·R, 5·R, 7·R of each Rᵢ in turn (none for a single verification)
     * @param aDigits the width-4 NAF of each aᵢ
     */
    private void joint(long[] s, long[] e, KeyTables key, long[][] rTables, int[][] aDigits) {
        long[] sLow = {s[0], s[1], 0, 0};
        long[] sHigh = {s[2], s[3], 0, 0};
        BigInteger[] split = splitLambda(toBigInteger(e));
        int[] s1 = wnaf(sLow, G_WINDOW);
        int[] s2 = wnaf(sHigh, G_WINDOW);
        int[] e1 = wnaf(limbs(split[0].abs()), P_WINDOW);
        int[] e2 = wnaf(limbs(split[1].abs()), P_WINDOW);
        // −e_i·P: subtract when e_i ≥ 0, add when it is negative
        boolean subtractE1 = split[0].signum() >= 0;
        boolean subtractE2 = split[1].signum() >= 0;
        long[][] pTable = key.multiples();
        long[][] lambdaTable = key.lambdaMultiples();
        point.setInfinity();
        int length = Math.max(Math.max(s1.length, s2.length), Math.max(e1.length, e2.length));
        for (int[] digits : aDigits) {
            length = Math.max(length, digits.length);
        }
        for (int i = length - 1; i >= 0; i--) {
            point.doubleR();
            int d1 = i < s1.length ? s1[i] : 0;
            if (d1 != 0) {
                point.addAffine(G_TABLE[Math.abs(d1) >> 1], d1 < 0);
            }
            int d2 = i < s2.length ? s2[i] : 0;
            if (d2 != 0) {
                point.addAffine(G128_TABLE[Math.abs(d2) >> 1], d2 < 0);
            }
            int d3 = i < e1.length ? e1[i] : 0;
            if (d3 != 0) {
                point.addAffine(pTable[Math.abs(d3) >> 1], (d3 > 0) == subtractE1);
            }
            int d4 = i < e2.length ? e2[i] : 0;
            if (d4 != 0) {
                point.addAffine(lambdaTable[Math.abs(d4) >> 1], (d4 > 0) == subtractE2);
            }
            for (int j = 0; j < aDigits.length; j++) {
                int[] digits = aDigits[j];
                int d = i < digits.length ? digits[i] : 0;
                if (d != 0) {
                    point.addAffine(rTables[j * R_MULTIPLES + (Math.abs(d) >> 1)], d > 0); // −aᵢ·Rᵢ
                }
            }
        }
    }

    /**
     * The affine odd multiples P, 3·P, …, 15·P of a public key's point and of λ·P, for the joint multiplication.
     * Building them costs about a third of a verification (the square root of lift_x, seven additions and one
     * inversion), and every create verifies two signatures by the same key (the NIP-98 header and the event), a batch
     * a hundred; so the tables of keys that recently signed something valid are kept in a direct-mapped cache of
     * {@value #SLOTS} slots (about 1.3 KiB each). A slot holds the last key that landed on it; the slot comes from the
     * key's x through murmur3's 64-bit finalizer applied after each limb, seeded with a per-process random salt, so a
     * client that does not know the salt cannot pick keys that land on another key's slot, and one that thrashes the
     * cache with valid signatures by keys of its own only brings verifications back to what they cost without it (a
     * miss builds the tables as before). Immutable once built, so a table is shared between threads without locks.
     *
     * @param x               the key's x coordinate, four limbs
     * @param slot            the key's slot in the cache
     * @param multiples       [x limbs, y limbs] of P, 3·P, …, 15·P
     * @param lambdaMultiples the same for λ·P = (β·x, y)
     */
    private record KeyTables(long[] x, int slot, long[][] multiples, long[][] lambdaMultiples) {

        static final int SLOTS = 4096;
        private static final AtomicReferenceArray<KeyTables> CACHE = new AtomicReferenceArray<>(SLOTS);
        private static final long SALT = new SecureRandom().nextLong();

        /** The cached tables of the key with x coordinate {@code x} ({@link #slot} of x: {@code slot}), or null. */
        static KeyTables cached(long[] x, int slot) {
            KeyTables tables = CACHE.get(slot);
            return tables != null && Secp256k1Field.equal(tables.x, x) ? tables : null;
        }

        /** Tables for {@code x} (whose {@link #slot} is {@code slot}) from its affine odd multiples, not yet cached. */
        static KeyTables of(long[] x, int slot, long[][] multiples) {
            long[][] lambdaMultiples = new long[multiples.length][];
            for (int i = 0; i < multiples.length; i++) {
                long[] point = multiples[i].clone();
                long[] px = new long[4];
                System.arraycopy(point, 0, px, 0, 4);
                mul(px, px, BETA);
                System.arraycopy(px, 0, point, 0, 4);
                lambdaMultiples[i] = point;
            }
            return new KeyTables(x.clone(), slot, multiples, lambdaMultiples);
        }

        /** Keeps these tables in their key's slot, in place of whatever was there (no write when they are there). */
        void remember() {
            if (CACHE.get(slot) != this) {
                CACHE.set(slot, this);
            }
        }

        /** The slot of the key with x coordinate {@code x}: salted murmur3 mixing of its limbs. */
        static int slot(long[] x) {
            long h = SALT;
            for (long limb : x) {
                h = fmix64(h ^ limb);
            }
            return (int) (h >>> (64 - Integer.numberOfTrailingZeros(SLOTS)));
        }

        /** murmur3's 64-bit finalizer: every input bit flips each output bit with probability about one half. */
        private static long fmix64(long z) {
            z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
            z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
            return z ^ (z >>> 33);
        }
    }

    /** k ≡ k1 + k2·λ (mod n), for tests of the split (see {@link Secp256k1Scalars#splitLambda}). */
    static BigInteger[] splitLambda(BigInteger k) {
        return Secp256k1Scalars.splitLambda(k);
    }

    /** λ, for tests of the split. */
    static BigInteger lambda() {
        return Secp256k1Scalars.lambda();
    }

    /** The width-w NAF of a scalar, for tests. */
    static int[] wnaf(long[] scalar, int width) {
        return Secp256k1Scalars.wnaf(scalar, width);
    }

    /** Four limbs of a value below 2^256, for tests. */
    static long[] limbs(BigInteger value) {
        return Secp256k1Field.limbs(value);
    }

    /** The value of four limbs, for tests. */
    static BigInteger toBigInteger(long[] limbs) {
        return Secp256k1Field.toBigInteger(limbs);
    }

    /** x·y mod p, for tests of the field arithmetic. */
    static long[] fieldMul(long[] x, long[] y) {
        long[] r = new long[4];
        mul(r, x, y);
        return r;
    }

    /** x² mod p, for tests of the field arithmetic. */
    static long[] fieldSquare(long[] x) {
        long[] r = new long[4];
        Secp256k1Field.sqr(r, x);
        return r;
    }

    /** 1/x mod p, for tests. */
    static long[] fieldInvert(long[] x) {
        long[] r = new long[4];
        new Secp256k1Point().invert(r, x);
        return r;
    }

    /** x + y and x − y mod p, for tests. */
    static long[][] fieldAddSub(long[] x, long[] y) {
        long[] sum = new long[4];
        long[] difference = new long[4];
        Secp256k1Field.add(sum, x, y);
        Secp256k1Field.sub(difference, x, y);
        return new long[][] {sum, difference};
    }

    private static byte[] secret() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return secret;
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

package buzz.scheduled.adapters.relay.signature;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.Hex;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.BIP340Signer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Our BIP-340 verifier against the official vectors and, differentially, against BouncyCastle's {@link BIP340Signer}
 * (the verifier it replaced) on many random keys, messages and signatures, valid and damaged; its field arithmetic
 * against {@link BigInteger} on random and edge values.
 */
class Secp256k1SchnorrTest {
    private static final BigInteger P = new BigInteger(
            "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F", 16);

    static List<Bip340VectorsTest.Row> rows() throws Exception {
        return Bip340VectorsTest.rows();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void verify_everyVectorRow_answersTheVectorsVerdict(Bip340VectorsTest.Row row) {
        Secp256k1Schnorr.Result result = Secp256k1Schnorr.verify(Hex.decode(row.publicKey()),
                Hex.decode(row.message()), Hex.decode(row.signature()));

        assertThat(result == Secp256k1Schnorr.Result.VALID).isEqualTo(row.verifies());
        assertThat(result == Secp256k1Schnorr.Result.KEY_NOT_ON_CURVE)
                .isEqualTo(BIP340Signer.decodePublicKey(Hex.decode(row.publicKey())) == null);
    }

    @Test
    void verify_randomSignaturesAndDamagedOnes_agreesWithBouncyCastleEveryTime() {
        SplittableRandom random = new SplittableRandom(340);
        int valid = 0;
        int damaged = 0;
        for (int n = 0; n < 1_000; n++) {
            byte[] secret = new byte[32];
            random.nextBytes(secret);
            secret[0] &= 0x7F; // below the group order
            if (new BigInteger(1, secret).signum() == 0) {
                continue;
            }
            Bip340Signer signer = Bip340Signer.withFixedAux(new SecretKey(Hex.encode(secret)), new byte[32]);
            byte[] message = new byte[n % 7 == 0 ? random.nextInt(100) : 32];
            random.nextBytes(message);
            byte[] signature = signer.signMessage(message);
            byte[] key = Hex.decode(signer.publicKey().hex());
            assertThat(Secp256k1Schnorr.verify(key, message, signature)).as("valid #%d", n)
                    .isEqualTo(Secp256k1Schnorr.Result.VALID);
            assertThat(bouncyCastle(key, message, signature)).isTrue();
            valid++;
            // one bit flipped in the signature, the message or the key, or the signature's s pushed to n and past
            byte[][] parts = {signature.clone(), message.clone(), key.clone()};
            int part = random.nextInt(message.length == 0 ? 2 : 3);
            int which = part == 1 ? 2 : part == 2 ? 1 : 0;
            byte[] target = parts[which];
            target[random.nextInt(target.length)] ^= (byte) (1 << random.nextInt(8));
            boolean ours = Secp256k1Schnorr.verify(parts[2], parts[1], parts[0]) == Secp256k1Schnorr.Result.VALID;
            assertThat(ours).as("damaged #%d", n).isEqualTo(bouncyCastle(parts[2], parts[1], parts[0]));
            damaged++;
        }
        assertThat(valid).isGreaterThan(950);
        assertThat(damaged).isEqualTo(valid);
    }

    @Test
    void verify_sameKeysAgainFromManyThreads_cachedKeyTablesGiveTheFirstVerdicts() throws Exception {
        // Every key is seen many times, from four threads at once, so most verifications use the tables a first one
        // cached (Secp256k1Schnorr.KeyTables); a damaged signature by a cached key must still fail.
        SplittableRandom random = new SplittableRandom(7);
        List<byte[][]> cases = new ArrayList<>();
        for (int n = 0; n < 64; n++) {
            byte[] secret = new byte[32];
            random.nextBytes(secret);
            secret[0] &= 0x7F;
            secret[31] |= 1;
            Bip340Signer signer = Bip340Signer.withFixedAux(new SecretKey(Hex.encode(secret)), new byte[32]);
            byte[] message = new byte[32];
            random.nextBytes(message);
            byte[] signature = signer.signMessage(message);
            byte[] damaged = signature.clone();
            damaged[32 + random.nextInt(32)] ^= (byte) (1 << random.nextInt(8));
            cases.add(new byte[][] {Hex.decode(signer.publicKey().hex()), message, signature, damaged});
        }
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Integer>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int offset = t * 16;
                runs.add(threads.submit(() -> {
                    int checked = 0;
                    for (int round = 0; round < 10; round++) {
                        for (int i = 0; i < cases.size(); i++) {
                            byte[][] c = cases.get((i + offset) % cases.size());
                            assertThat(Secp256k1Schnorr.verify(c[0], c[1], c[2]))
                                    .isEqualTo(Secp256k1Schnorr.Result.VALID);
                            assertThat(Secp256k1Schnorr.verify(c[0], c[1], c[3]))
                                    .isEqualTo(Secp256k1Schnorr.Result.SIGNATURE_MISMATCH);
                            checked += 2;
                        }
                    }
                    return checked;
                }));
            }
            for (java.util.concurrent.Future<Integer> run : runs) {
                assertThat(run.get()).isEqualTo(10 * 64 * 2);
            }
        } finally {
            threads.shutdownNow();
        }
        for (byte[][] c : cases) {
            assertThat(bouncyCastle(c[0], c[1], c[3])).isFalse();
        }
    }

    @Test
    void verify_randomKeysAndSignatures_agreesWithBouncyCastleOnKeyAndVerdict() {
        SplittableRandom random = new SplittableRandom(98);
        int offCurve = 0;
        for (int n = 0; n < 1_000; n++) {
            byte[] key = new byte[32];
            byte[] signature = new byte[64];
            byte[] message = new byte[32];
            random.nextBytes(key);
            random.nextBytes(signature);
            random.nextBytes(message);
            if (n % 50 == 0) {
                java.util.Arrays.fill(key, 0, 28, (byte) 0xFF); // near and past p
            }
            Secp256k1Schnorr.Result ours = Secp256k1Schnorr.verify(key, message, signature);
            boolean theirsOffCurve = BIP340Signer.decodePublicKey(key) == null;
            assertThat(ours == Secp256k1Schnorr.Result.KEY_NOT_ON_CURVE).as("#%d", n).isEqualTo(theirsOffCurve);
            assertThat(ours == Secp256k1Schnorr.Result.VALID).isEqualTo(!theirsOffCurve
                    && bouncyCastle(key, message, signature));
            offCurve += theirsOffCurve ? 1 : 0;
        }
        assertThat(offCurve).isBetween(350, 650); // about half of all x have a point
    }

    @Test
    void fieldArithmetic_randomAndEdgeValues_matchesBigIntegerModP() {
        SplittableRandom random = new SplittableRandom(7);
        List<BigInteger> values = new ArrayList<>(List.of(BigInteger.ZERO, BigInteger.ONE, BigInteger.TWO,
                P.subtract(BigInteger.ONE), P.subtract(BigInteger.TWO), BigInteger.ONE.shiftLeft(255),
                BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE), P.shiftRight(1),
                BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE), BigInteger.ONE.shiftLeft(192).subtract(
                        BigInteger.ONE), BigInteger.ONE.shiftLeft(192), P.subtract(BigInteger.ONE.shiftLeft(64))));
        for (int i = 0; i < 400; i++) {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            values.add(new BigInteger(1, bytes).mod(P));
        }
        for (int i = 0; i < values.size(); i++) {
            BigInteger x = values.get(i);
            BigInteger y = values.get((i * 31 + 5) % values.size());
            long[] lx = Secp256k1Schnorr.limbs(x);
            long[] ly = Secp256k1Schnorr.limbs(y);
            assertThat(Secp256k1Schnorr.toBigInteger(Secp256k1Schnorr.fieldMul(lx, ly))).as("%s * %s", x, y)
                    .isEqualTo(x.multiply(y).mod(P));
            assertThat(Secp256k1Schnorr.toBigInteger(Secp256k1Schnorr.fieldSquare(lx))).as("%s²", x)
                    .isEqualTo(x.multiply(x).mod(P));
            long[][] addSub = Secp256k1Schnorr.fieldAddSub(lx, ly);
            assertThat(Secp256k1Schnorr.toBigInteger(addSub[0])).isEqualTo(x.add(y).mod(P));
            assertThat(Secp256k1Schnorr.toBigInteger(addSub[1])).isEqualTo(x.subtract(y).mod(P));
            if (x.signum() != 0) {
                assertThat(Secp256k1Schnorr.toBigInteger(Secp256k1Schnorr.fieldInvert(lx))).isEqualTo(x.modInverse(P));
            }
        }
    }

    @Test
    void wnaf_randomScalars_digitsAreOddBoundedAndSumBack() {
        SplittableRandom random = new SplittableRandom(5);
        for (int n = 0; n < 300; n++) {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            BigInteger k = new BigInteger(1, bytes);
            int width = 4 + n % 5;
            int[] digits = Secp256k1Schnorr.wnaf(Secp256k1Schnorr.limbs(k), width);
            BigInteger sum = BigInteger.ZERO;
            for (int i = digits.length - 1; i >= 0; i--) {
                sum = sum.shiftLeft(1).add(BigInteger.valueOf(digits[i]));
                assertThat(digits[i] == 0 || (digits[i] & 1) != 0 && Math.abs(digits[i]) < 1 << (width - 1)).isTrue();
            }
            assertThat(sum).isEqualTo(k);
        }
    }

    @Test
    void splitLambda_randomScalars_halvesRecombineModuloTheOrder() {
        BigInteger order = new BigInteger("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141", 16);
        SplittableRandom random = new SplittableRandom(3);
        List<BigInteger> scalars = new ArrayList<>(List.of(BigInteger.ZERO, BigInteger.ONE,
                order.subtract(BigInteger.ONE), Secp256k1Schnorr.lambda()));
        for (int i = 0; i < 500; i++) {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            scalars.add(new BigInteger(1, bytes).mod(order));
        }
        for (BigInteger k : scalars) {
            BigInteger[] split = Secp256k1Schnorr.splitLambda(k);

            assertThat(split[0].add(split[1].multiply(Secp256k1Schnorr.lambda())).mod(order)).as("%s", k).isEqualTo(k);
            assertThat(split[0].abs().bitLength()).isLessThanOrEqualTo(129);
            assertThat(split[1].abs().bitLength()).isLessThanOrEqualTo(129);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void verifyBatch_everyVectorRowAloneAndTwiceOver_answersTheVectorsVerdict(Bip340VectorsTest.Row row) {
        byte[] key = Hex.decode(row.publicKey());
        byte[] message = Hex.decode(row.message());
        byte[] signature = Hex.decode(row.signature());

        assertThat(Secp256k1Schnorr.verifyBatch(key, new byte[][] {message}, new byte[][] {signature})
                == Secp256k1Schnorr.BatchResult.VALID).isEqualTo(row.verifies());
        assertThat(Secp256k1Schnorr.verifyBatch(key, new byte[][] {message, message},
                new byte[][] {signature, signature}) == Secp256k1Schnorr.BatchResult.VALID).isEqualTo(row.verifies());
    }

    @Test
    void verifyBatch_randomBatchesByOneKey_validWhenAllVerify_notWithAnyOneDamaged() {
        SplittableRandom random = new SplittableRandom(3401);
        for (int n = 0; n < 60; n++) {
            Bip340Signer signer = randomSigner(random);
            byte[] key = Hex.decode(signer.publicKey().hex());
            int size = 1 + random.nextInt(n < 50 ? 12 : 100);
            byte[][] messages = new byte[size][];
            byte[][] signatures = new byte[size][];
            for (int i = 0; i < size; i++) {
                messages[i] = new byte[i % 5 == 4 ? random.nextInt(70) : 32];
                random.nextBytes(messages[i]);
                signatures[i] = signer.signMessage(messages[i]);
            }
            assertThat(Secp256k1Schnorr.verifyBatch(key, messages, signatures)).as("batch #%d of %d", n, size)
                    .isEqualTo(Secp256k1Schnorr.BatchResult.VALID);

            // one bit of one signature or message flipped, or two signatures swapped
            int victim = random.nextInt(size);
            byte[][] damagedMessages = messages.clone();
            byte[][] damagedSignatures = signatures.clone();
            int how = random.nextInt(size > 1 ? 3 : 2);
            if (how == 0 || messages[victim].length == 0) {
                damagedSignatures[victim] = flipOneBit(signatures[victim], random);
            } else if (how == 1) {
                damagedMessages[victim] = flipOneBit(messages[victim], random);
            } else {
                int other = (victim + 1 + random.nextInt(size - 1)) % size;
                damagedSignatures[victim] = signatures[other];
                damagedSignatures[other] = signatures[victim];
            }
            boolean eachVerifies = true;
            for (int i = 0; i < size; i++) {
                eachVerifies &= Secp256k1Schnorr.verify(key, damagedMessages[i], damagedSignatures[i])
                        == Secp256k1Schnorr.Result.VALID;
            }
            assertThat(eachVerifies).as("the damage is real #%d", n).isFalse();
            assertThat(Secp256k1Schnorr.verifyBatch(key, damagedMessages, damagedSignatures))
                    .as("damaged batch #%d of %d (%d)", n, size, how).isNotEqualTo(Secp256k1Schnorr.BatchResult.VALID);
        }
    }

    @ParameterizedTest(name = "forged at {0} and {1}")
    @org.junit.jupiter.params.provider.CsvSource({"0, 1", "1, 2", "3, 7", "7, 0"})
    void verifyBatch_twoForgeriesWhoseErrorsCancelInAPlainSum_doNotPass(int up, int down) {
        // sᵤ + δ and s_d − δ: Σ sᵢ·G = Σ Rᵢ + Σ eᵢ·P still holds, so only distinct random multipliers catch them
        SplittableRandom random = new SplittableRandom(3402);
        Bip340Signer signer = randomSigner(random);
        byte[] key = Hex.decode(signer.publicKey().hex());
        byte[][] messages = new byte[8][32];
        byte[][] signatures = new byte[8][];
        for (int i = 0; i < 8; i++) {
            random.nextBytes(messages[i]);
            signatures[i] = signer.signMessage(messages[i]);
        }
        BigInteger n = Secp256k1Scalars.ORDER;
        BigInteger delta = BigInteger.valueOf(12345);
        byte[][] forged = signatures.clone();
        forged[up] = withS(signatures[up], s(signatures[up]).add(delta).mod(n));
        forged[down] = withS(signatures[down], s(signatures[down]).subtract(delta).mod(n));

        assertThat(Secp256k1Schnorr.verify(key, messages[up], forged[up]))
                .isEqualTo(Secp256k1Schnorr.Result.SIGNATURE_MISMATCH);
        assertThat(Secp256k1Schnorr.verify(key, messages[down], forged[down]))
                .isEqualTo(Secp256k1Schnorr.Result.SIGNATURE_MISMATCH);
        assertThat(Secp256k1Schnorr.verifyBatch(key, messages, forged)).isEqualTo(Secp256k1Schnorr.BatchResult.MISMATCH);
        assertThat(Secp256k1Schnorr.verifyBatch(key, messages, signatures))
                .isEqualTo(Secp256k1Schnorr.BatchResult.VALID);
    }

    @Test
    void verifyBatch_keyOffTheCurveOrAtP_rAtOrAboveP_sAtN_orRNotAPoint_isRefusedBeforeAnyArithmetic() {
        SplittableRandom random = new SplittableRandom(3403);
        Bip340Signer signer = randomSigner(random);
        byte[] key = Hex.decode(signer.publicKey().hex());
        byte[] message = new byte[32];
        byte[] signature = signer.signMessage(message);
        byte[] fieldSize = Hex.decode("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f");
        byte[] fieldSizePlusOne = Hex.decode("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc30");
        byte[] order = Hex.decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
        // x = 1 is on the curve, so only the range check refuses r = p + 1; s = n would be s = 0 without its check
        byte[] rAboveP = withR(signature, fieldSizePlusOne);
        byte[] rAtP = withR(signature, fieldSize);
        byte[] sAtN = signature.clone();
        System.arraycopy(order, 0, sAtN, 32, 32);
        byte[] five = new byte[32];
        five[31] = 5; // 5³ + 7 = 132 is not a square mod p
        byte[] rNotAPoint = withR(signature, five);
        byte[] offCurve = Hex.decode("eefdea4cdb677750a420fee807eacf21eb9898ae79b9768766e4faa04a2d4a34");

        assertThat(Secp256k1Schnorr.verifyBatch(key, new byte[][] {message}, new byte[][] {signature}))
                .isEqualTo(Secp256k1Schnorr.BatchResult.VALID);
        for (byte[] bad : List.of(rAboveP, rAtP, sAtN, rNotAPoint)) {
            assertThat(Secp256k1Schnorr.verifyBatch(key, new byte[][] {message, message},
                    new byte[][] {signature, bad})).isEqualTo(Secp256k1Schnorr.BatchResult.MALFORMED_SIGNATURE);
        }
        for (byte[] badKey : List.of(offCurve, fieldSize, fieldSizePlusOne)) {
            assertThat(Secp256k1Schnorr.verifyBatch(badKey, new byte[][] {message}, new byte[][] {signature}))
                    .isEqualTo(Secp256k1Schnorr.BatchResult.KEY_NOT_ON_CURVE);
            assertThat(Secp256k1Schnorr.verify(badKey, message, signature))
                    .isEqualTo(Secp256k1Schnorr.Result.KEY_NOT_ON_CURVE);
        }
    }

    private static Bip340Signer randomSigner(SplittableRandom random) {
        byte[] secret = new byte[32];
        do {
            random.nextBytes(secret);
            secret[0] &= 0x7F; // below the group order
        } while (new BigInteger(1, secret).signum() == 0);
        return Bip340Signer.withFixedAux(new SecretKey(Hex.encode(secret)), new byte[32]);
    }

    private static byte[] flipOneBit(byte[] bytes, SplittableRandom random) {
        byte[] flipped = bytes.clone();
        flipped[random.nextInt(flipped.length)] ^= (byte) (1 << random.nextInt(8));
        return flipped;
    }

    private static byte[] withR(byte[] signature, byte[] r) {
        byte[] out = signature.clone();
        System.arraycopy(r, 0, out, 0, 32);
        return out;
    }

    private static BigInteger s(byte[] signature) {
        return new BigInteger(1, java.util.Arrays.copyOfRange(signature, 32, 64));
    }

    private static byte[] withS(byte[] signature, BigInteger s) {
        byte[] out = signature.clone();
        byte[] bytes = s.toByteArray();
        java.util.Arrays.fill(out, 32, 64, (byte) 0);
        int length = Math.min(bytes.length, 32);
        System.arraycopy(bytes, bytes.length - length, out, 64 - length, length);
        return out;
    }

    private static boolean bouncyCastle(byte[] key, byte[] message, byte[] signature) {
        ECPublicKeyParameters decoded = BIP340Signer.decodePublicKey(key);
        if (decoded == null) {
            return false;
        }
        BIP340Signer verifier = new BIP340Signer();
        verifier.init(false, decoded);
        verifier.update(message, 0, message.length);
        return verifier.verifySignature(signature);
    }
}

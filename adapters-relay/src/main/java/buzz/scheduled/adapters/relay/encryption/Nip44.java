package buzz.scheduled.adapters.relay.encryption;

import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.PublicKey;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.engines.ChaCha7539Engine;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.HKDFParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * NIP-44 version 2 encryption, on BouncyCastle: the conversation key is HKDF-extract (SHA-256, salt
 * {@code "nip44-v2"}) of the unhashed secp256k1 ECDH x coordinate; each message takes a fresh 32-byte nonce, from
 * which HKDF-expand gives the ChaCha20 key (32 bytes), ChaCha20 nonce (12) and HMAC-SHA256 key (32); the plaintext
 * (1 to 65535 UTF-8 bytes) is prefixed with its length as a big-endian u16 and zero-padded to the NIP's padded length;
 * the MAC covers nonce and ciphertext. The payload is base64 (with padding) of
 * {@code 0x02 || nonce || ciphertext || mac}.
 *
 * <p>Decryption checks, in the NIP's order: the payload's length (132 to 87472 characters) and first character
 * ({@code #}: a future, non-base64 version), base64, the decoded length (99 to 65603 bytes), the version byte, the MAC
 * (compared in constant time) and the padding; any failure is an {@link Opened.Unreadable} naming the check, never an
 * exception. Thread-safe (no state).
 */
public final class Nip44 {
    /** The version byte of the payloads made and read here. */
    public static final int VERSION = 2;
    /** Shortest plaintext, in UTF-8 bytes. */
    public static final int MIN_PLAINTEXT_BYTES = 1;
    /** Longest plaintext, in UTF-8 bytes. */
    public static final int MAX_PLAINTEXT_BYTES = 65535;
    /** Shortest and longest payload the NIP allows, in base64 characters. */
    static final int MIN_PAYLOAD_CHARS = 132;
    static final int MAX_PAYLOAD_CHARS = 87472;
    /** Shortest and longest decoded payload, in bytes. */
    static final int MIN_DATA_BYTES = 99;
    static final int MAX_DATA_BYTES = 65603;

    private static final byte[] SALT = "nip44-v2".getBytes(StandardCharsets.US_ASCII);
    private static final int NONCE_BYTES = 32;
    private static final int MAC_BYTES = 32;
    private static final int CHACHA_KEY_BYTES = 32;
    private static final int CHACHA_NONCE_BYTES = 12;
    private static final int HMAC_KEY_BYTES = 32;

    private Nip44() {
    }

    /**
     * The key two parties share (NIP-44 {@code get_conversation_key}); symmetric: the same for (a, B) and (b, A).
     * {@link #toString()} never shows it.
     *
     * @param bytes 32 bytes
     */
    public record ConversationKey(byte[] bytes) {
        public ConversationKey {
            if (bytes == null || bytes.length != 32) {
                throw new IllegalArgumentException("a NIP-44 conversation key is 32 bytes");
            }
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof ConversationKey key && MessageDigest.isEqual(bytes, key.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "ConversationKey[redacted]";
        }
    }

    /**
     * The per-message keys of NIP-44 {@code get_message_keys}: HKDF-expand of the conversation key with the nonce as
     * info, 76 bytes.
     */
    record MessageKeys(byte[] chachaKey, byte[] chachaNonce, byte[] hmacKey) {
    }

    /** What decrypting a payload gave. */
    public sealed interface Opened {
        /** The plaintext (UTF-8 decoded). */
        record Plaintext(String text) implements Opened {
        }

        /** Not a readable NIP-44 v2 payload for this key; {@code reason} names the failed check. */
        record Unreadable(String reason) implements Opened {
        }
    }

    /**
     * The conversation key of {@code secret} and {@code peer}.
     *
     * @throws IllegalArgumentException when {@code peer} is not on secp256k1
     */
    public static ConversationKey conversationKey(SecretKey secret, PublicKey peer) {
        byte[] sharedX = secret.sharedX(peer);
        try {
            return new ConversationKey(hmac(SALT, sharedX));
        } finally {
            Arrays.fill(sharedX, (byte) 0);
        }
    }

    /**
     * Encrypts {@code plaintext} with a fresh nonce from {@code random}.
     *
     * @throws IllegalArgumentException when the plaintext is not 1 to 65535 UTF-8 bytes
     */
    public static String encrypt(String plaintext, ConversationKey key, SecureRandom random) {
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        return encrypt(plaintext, key, nonce);
    }

    /** Encrypts with the given 32-byte nonce (the NIP's vectors fix it; everything else must use a fresh one). */
    static String encrypt(String plaintext, ConversationKey key, byte[] nonce) {
        if (nonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("a NIP-44 nonce is " + NONCE_BYTES + " bytes");
        }
        byte[] padded = pad(plaintext.getBytes(StandardCharsets.UTF_8));
        MessageKeys keys = messageKeys(key, nonce);
        byte[] ciphertext = chacha20(keys, padded);
        byte[] mac = hmacAad(keys.hmacKey(), nonce, ciphertext);
        byte[] data = new byte[1 + NONCE_BYTES + ciphertext.length + MAC_BYTES];
        data[0] = VERSION;
        System.arraycopy(nonce, 0, data, 1, NONCE_BYTES);
        System.arraycopy(ciphertext, 0, data, 1 + NONCE_BYTES, ciphertext.length);
        System.arraycopy(mac, 0, data, 1 + NONCE_BYTES + ciphertext.length, MAC_BYTES);
        return Base64.getEncoder().encodeToString(data);
    }

    /** Decrypts {@code payload}; every check of the NIP is applied and reported, nothing is thrown for bad input. */
    public static Opened decrypt(String payload, ConversationKey key) {
        int length = payload.length();
        if (length > 0 && payload.charAt(0) == '#') {
            return unreadable("unknown encryption version (a payload starting with # is not base64)");
        }
        if (length < MIN_PAYLOAD_CHARS || length > MAX_PAYLOAD_CHARS) {
            return unreadable("invalid payload length " + length + ": a NIP-44 v2 payload has " + MIN_PAYLOAD_CHARS
                    + " to " + MAX_PAYLOAD_CHARS + " base64 characters");
        }
        byte[] data;
        try {
            data = Base64.getDecoder().decode(payload);
        } catch (IllegalArgumentException e) {
            return unreadable("invalid base64: " + e.getMessage());
        }
        if (data.length < MIN_DATA_BYTES || data.length > MAX_DATA_BYTES) {
            return unreadable("invalid data length " + data.length + ": " + MIN_DATA_BYTES + " to " + MAX_DATA_BYTES
                    + " bytes");
        }
        if (data[0] != VERSION) {
            return unreadable("unknown encryption version " + (data[0] & 0xff) + " (only " + VERSION + " is read)");
        }
        byte[] nonce = Arrays.copyOfRange(data, 1, 1 + NONCE_BYTES);
        byte[] ciphertext = Arrays.copyOfRange(data, 1 + NONCE_BYTES, data.length - MAC_BYTES);
        byte[] mac = Arrays.copyOfRange(data, data.length - MAC_BYTES, data.length);
        MessageKeys keys = messageKeys(key, nonce);
        if (!MessageDigest.isEqual(mac, hmacAad(keys.hmacKey(), nonce, ciphertext))) {
            return unreadable("invalid MAC");
        }
        byte[] padded = chacha20(keys, ciphertext);
        int declared = ((padded[0] & 0xff) << 8) | (padded[1] & 0xff);
        if (declared < MIN_PLAINTEXT_BYTES || padded.length != 2 + paddedLength(declared)) {
            return unreadable("invalid padding");
        }
        try {
            return new Opened.Plaintext(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(padded, 2, declared)).toString());
        } catch (CharacterCodingException e) {
            return unreadable("the plaintext is not UTF-8");
        }
    }

    /**
     * NIP-44 {@code calc_padded_len}: 32 up to 32 bytes; above, multiples of a chunk that is 32 bytes up to 256 and an
     * eighth of the next power of two beyond.
     *
     * @param unpadded plaintext length in bytes, at least 1
     */
    static int paddedLength(int unpadded) {
        if (unpadded < 1) {
            throw new IllegalArgumentException("a padded length needs at least one byte, got " + unpadded);
        }
        if (unpadded <= 32) {
            return 32;
        }
        int nextPower = Integer.highestOneBit(unpadded - 1) << 1;
        int chunk = nextPower <= 256 ? 32 : nextPower / 8;
        return chunk * ((unpadded - 1) / chunk + 1);
    }

    static MessageKeys messageKeys(ConversationKey key, byte[] nonce) {
        HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
        hkdf.init(HKDFParameters.skipExtractParameters(key.bytes, nonce));
        byte[] okm = new byte[CHACHA_KEY_BYTES + CHACHA_NONCE_BYTES + HMAC_KEY_BYTES];
        hkdf.generateBytes(okm, 0, okm.length);
        return new MessageKeys(Arrays.copyOfRange(okm, 0, CHACHA_KEY_BYTES),
                Arrays.copyOfRange(okm, CHACHA_KEY_BYTES, CHACHA_KEY_BYTES + CHACHA_NONCE_BYTES),
                Arrays.copyOfRange(okm, CHACHA_KEY_BYTES + CHACHA_NONCE_BYTES, okm.length));
    }

    private static byte[] pad(byte[] plaintext) {
        if (plaintext.length < MIN_PLAINTEXT_BYTES || plaintext.length > MAX_PLAINTEXT_BYTES) {
            throw new IllegalArgumentException("a NIP-44 plaintext is " + MIN_PLAINTEXT_BYTES + " to "
                    + MAX_PLAINTEXT_BYTES + " UTF-8 bytes, got " + plaintext.length);
        }
        byte[] padded = new byte[2 + paddedLength(plaintext.length)];
        padded[0] = (byte) (plaintext.length >>> 8);
        padded[1] = (byte) plaintext.length;
        System.arraycopy(plaintext, 0, padded, 2, plaintext.length);
        return padded;
    }

    private static byte[] chacha20(MessageKeys keys, byte[] input) {
        ChaCha7539Engine engine = new ChaCha7539Engine();
        engine.init(true, new ParametersWithIV(new KeyParameter(keys.chachaKey()), keys.chachaNonce()));
        byte[] output = new byte[input.length];
        engine.processBytes(input, 0, input.length, output, 0);
        return output;
    }

    private static byte[] hmac(byte[] key, byte[] message) {
        HMac mac = new HMac(new SHA256Digest());
        mac.init(new KeyParameter(key));
        mac.update(message, 0, message.length);
        byte[] out = new byte[mac.getMacSize()];
        mac.doFinal(out, 0);
        return out;
    }

    private static byte[] hmacAad(byte[] key, byte[] aad, byte[] message) {
        HMac mac = new HMac(new SHA256Digest());
        mac.init(new KeyParameter(key));
        mac.update(aad, 0, aad.length);
        mac.update(message, 0, message.length);
        byte[] out = new byte[mac.getMacSize()];
        mac.doFinal(out, 0);
        return out;
    }

    private static Opened unreadable(String reason) {
        return new Opened.Unreadable(reason);
    }
}

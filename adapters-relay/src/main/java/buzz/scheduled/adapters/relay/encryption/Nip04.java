package buzz.scheduled.adapters.relay.encryption;

import buzz.scheduled.adapters.relay.encryption.Nip44.Opened;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.PublicKey;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * NIP-04 decryption, for clients that still send it (the NIP is deprecated in favour of NIP-44; nothing is encrypted
 * with it here): {@code <base64 ciphertext>?iv=<base64 16-byte IV>}, AES-256-CBC with PKCS#7 padding, the key being the
 * unhashed secp256k1 ECDH x coordinate. Every failure is an {@link Opened.Unreadable}, never an exception.
 */
public final class Nip04 {
    /** Longest payload read, in characters: a bound on work done for an outsider. */
    public static final int MAX_PAYLOAD_CHARS = 1 << 20;
    private static final String IV_SEPARATOR = "?iv=";
    private static final int IV_BYTES = 16;
    private static final int BLOCK_BYTES = 16;

    private Nip04() {
    }

    /** Whether {@code content} has the shape of a NIP-04 payload (NDK and nostr-tools tell the two apart so). */
    public static boolean looksLikeNip04(String content) {
        return content.contains(IV_SEPARATOR);
    }

    /**
     * Decrypts {@code payload} sent by {@code sender} to the holder of {@code recipient}.
     *
     * @throws IllegalArgumentException when {@code sender} is not on secp256k1
     */
    public static Opened decrypt(String payload, SecretKey recipient, PublicKey sender) {
        if (payload.length() > MAX_PAYLOAD_CHARS) {
            return new Opened.Unreadable("a NIP-04 payload is at most " + MAX_PAYLOAD_CHARS + " characters here, got "
                    + payload.length());
        }
        int separator = payload.indexOf(IV_SEPARATOR);
        if (separator < 0) {
            return new Opened.Unreadable("not a NIP-04 payload: no \"?iv=\"");
        }
        byte[] ciphertext;
        byte[] iv;
        try {
            ciphertext = Base64.getDecoder().decode(payload.substring(0, separator));
            iv = Base64.getDecoder().decode(payload.substring(separator + IV_SEPARATOR.length()));
        } catch (IllegalArgumentException e) {
            return new Opened.Unreadable("invalid base64 in a NIP-04 payload: " + e.getMessage());
        }
        if (iv.length != IV_BYTES) {
            return new Opened.Unreadable("a NIP-04 IV is " + IV_BYTES + " bytes, got " + iv.length);
        }
        if (ciphertext.length == 0 || ciphertext.length % BLOCK_BYTES != 0) {
            return new Opened.Unreadable("a NIP-04 ciphertext is a non-empty multiple of " + BLOCK_BYTES
                    + " bytes, got " + ciphertext.length);
        }
        byte[] key = recipient.sharedX(sender);
        try {
            Cipher cipher = Cipher.getInstance("AES/CBC/PKCS5Padding");
            cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
            byte[] plaintext = cipher.doFinal(ciphertext);
            return new Opened.Plaintext(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(plaintext)).toString());
        } catch (CharacterCodingException e) {
            return new Opened.Unreadable("the NIP-04 plaintext is not UTF-8");
        } catch (GeneralSecurityException e) {
            return new Opened.Unreadable("NIP-04 decryption failed (wrong key or bad padding)");
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }
}

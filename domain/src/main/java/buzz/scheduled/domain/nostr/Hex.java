package buzz.scheduled.domain.nostr;

/** Lowercase hexadecimal as NIP-01 requires it for ids, keys and signatures. */
public final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {
    }

    /**
     * Checks that {@code value} is exactly {@code bytes * 2} lowercase hex characters.
     *
     * @throws IllegalArgumentException naming {@code field} and what is wrong (missing, length, uppercase, non-hex)
     */
    public static void requireLowercase(String field, String value, int bytes) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        if (value.length() != bytes * 2) {
            throw new IllegalArgumentException(
                    field + " must be " + (bytes * 2) + " hex characters, got " + value.length());
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 'A' && c <= 'F') {
                throw new IllegalArgumentException("uppercase hex in " + field + " (NIP-01 requires lowercase)");
            }
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                throw new IllegalArgumentException("non-hex character " + describe(c) + " at index " + i
                        + " in " + field);
            }
        }
    }

    private static String describe(char c) {
        return c > 0x20 && c < 0x7f ? "'" + c + "'" : String.format("U+%04X", (int) c);
    }

    /** Encodes bytes as lowercase hex. */
    public static String encode(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = DIGITS[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = DIGITS[bytes[i] & 0xf];
        }
        return new String(out);
    }

    /**
     * Decodes lowercase hex.
     *
     * @throws IllegalArgumentException on odd length or a character outside {@code [0-9a-f]}
     */
    public static byte[] decode(String hex) {
        if (hex.length() % 2 != 0) {
            throw new IllegalArgumentException("odd-length hex");
        }
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) ((nibble(hex.charAt(2 * i)) << 4) | nibble(hex.charAt(2 * i + 1)));
        }
        return out;
    }

    private static int nibble(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        throw new IllegalArgumentException("non-hex character '" + c + "'");
    }
}

package buzz.scheduled.domain.nostr;

import java.util.Arrays;
import java.util.Locale;

/**
 * Bech32 as BIP-173 defines it (not the Bech32m of BIP-350; NIP-19 uses the original): a human-readable part, the
 * separator {@code 1}, data as 5-bit groups in the 32-character alphabet, and a 6-character BCH checksum over both.
 * Decoding accepts all-lowercase or all-uppercase text of at most 90 characters and returns the lowercase
 * human-readable part; encoding writes lowercase.
 */
public final class Bech32 {

    /** BIP-173: longest valid string. */
    public static final int MAX_LENGTH = 90;

    private static final String CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
    private static final int CHECKSUM_LENGTH = 6;
    private static final int[] GENERATOR = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3};
    private static final int[] VALUES = new int[128];

    static {
        Arrays.fill(VALUES, -1);
        for (int i = 0; i < CHARSET.length(); i++) {
            VALUES[CHARSET.charAt(i)] = i;
        }
    }

    private Bech32() {
    }

    /**
     * A decoded string.
     *
     * @param humanReadablePart lowercase, 1 to 83 characters in US-ASCII 33..126
     * @param data              5-bit values (0..31), checksum removed
     */
    public record Decoded(String humanReadablePart, byte[] data) {
        public Decoded {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }
    }

    /**
     * Decodes {@code text}.
     *
     * @throws IllegalArgumentException saying which BIP-173 rule {@code text} breaks (length, mixed case, character
     *                                  out of range, no separator, empty human-readable part, short or wrong
     *                                  checksum)
     */
    public static Decoded decode(String text) {
        if (text == null) {
            throw new IllegalArgumentException("bech32 text is missing");
        }
        if (text.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("bech32 text is " + text.length() + " characters; at most "
                    + MAX_LENGTH + " are allowed (BIP-173)");
        }
        boolean lower = false;
        boolean upper = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 33 || c > 126) {
                throw new IllegalArgumentException("bech32 text has a character out of range at index " + i
                        + " (only US-ASCII 33 to 126 are allowed)");
            }
            lower |= c >= 'a' && c <= 'z';
            upper |= c >= 'A' && c <= 'Z';
        }
        if (lower && upper) {
            throw new IllegalArgumentException("bech32 text mixes upper and lower case");
        }
        String folded = text.toLowerCase(Locale.ROOT);
        int separator = folded.lastIndexOf('1');
        if (separator < 0) {
            throw new IllegalArgumentException("bech32 text has no separator '1'");
        }
        if (separator == 0) {
            throw new IllegalArgumentException("bech32 text has an empty human-readable part");
        }
        if (folded.length() - separator - 1 < CHECKSUM_LENGTH) {
            throw new IllegalArgumentException("bech32 text has a checksum shorter than " + CHECKSUM_LENGTH
                    + " characters");
        }
        String hrp = folded.substring(0, separator);
        byte[] values = new byte[folded.length() - separator - 1];
        for (int i = 0; i < values.length; i++) {
            char c = folded.charAt(separator + 1 + i);
            int value = VALUES[c];
            if (value < 0) {
                // The character itself is not quoted: the text may be a secret key (nsec).
                throw new IllegalArgumentException("bech32 text has a character at index " + (separator + 1 + i)
                        + " that is not in the data alphabet " + CHARSET);
            }
            values[i] = (byte) value;
        }
        if (polymod(hrp, values) != 1) {
            throw new IllegalArgumentException("bech32 checksum does not match (a character is wrong or missing)");
        }
        return new Decoded(hrp, Arrays.copyOf(values, values.length - CHECKSUM_LENGTH));
    }

    /**
     * Encodes 5-bit {@code data} under {@code humanReadablePart}, in lowercase with its checksum.
     *
     * @throws IllegalArgumentException when the part is empty or has characters outside US-ASCII 33..126 or
     *                                  uppercase letters, a value is outside 0..31, or the result would exceed
     *                                  {@value #MAX_LENGTH} characters
     */
    public static String encode(String humanReadablePart, byte[] data) {
        if (humanReadablePart == null || humanReadablePart.isEmpty()) {
            throw new IllegalArgumentException("bech32 human-readable part is empty");
        }
        for (int i = 0; i < humanReadablePart.length(); i++) {
            char c = humanReadablePart.charAt(i);
            if (c < 33 || c > 126 || (c >= 'A' && c <= 'Z')) {
                throw new IllegalArgumentException("bech32 human-readable part must be lowercase US-ASCII 33 to 126");
            }
        }
        int length = humanReadablePart.length() + 1 + data.length + CHECKSUM_LENGTH;
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("bech32 text would be " + length + " characters; at most "
                    + MAX_LENGTH + " are allowed (BIP-173)");
        }
        byte[] withChecksum = Arrays.copyOf(data, data.length + CHECKSUM_LENGTH);
        for (byte value : data) {
            if (value < 0 || value > 31) {
                throw new IllegalArgumentException("bech32 data value " + value + " is not a 5-bit group");
            }
        }
        int checksum = polymod(humanReadablePart, withChecksum) ^ 1;
        for (int i = 0; i < CHECKSUM_LENGTH; i++) {
            withChecksum[data.length + i] = (byte) ((checksum >>> (5 * (CHECKSUM_LENGTH - 1 - i))) & 31);
        }
        StringBuilder out = new StringBuilder(length).append(humanReadablePart).append('1');
        for (byte value : withChecksum) {
            out.append(CHARSET.charAt(value));
        }
        return out.toString();
    }

    /** Regroups bytes into 5-bit values, most significant bit first, padding the last group with zeros (BIP-173). */
    public static byte[] toFiveBit(byte[] bytes) {
        return regroup(bytes, 8, 5, true);
    }

    /**
     * Regroups 5-bit values into bytes (BIP-173): an incomplete group at the end must be 4 bits or less and all
     * zeros, and is dropped.
     *
     * @throws IllegalArgumentException when a value is outside 0..31 or the padding is longer than 4 bits or not zero
     */
    public static byte[] fromFiveBit(byte[] values) {
        return regroup(values, 5, 8, false);
    }

    private static byte[] regroup(byte[] in, int fromBits, int toBits, boolean pad) {
        int accumulator = 0;
        int bits = 0;
        int max = (1 << toBits) - 1;
        byte[] out = new byte[(in.length * fromBits + (pad ? toBits - 1 : 0)) / toBits];
        int written = 0;
        for (byte b : in) {
            int value = b & 0xff;
            if (value >> fromBits != 0) {
                throw new IllegalArgumentException("value " + value + " does not fit in " + fromBits + " bits");
            }
            accumulator = (accumulator << fromBits) | value;
            bits += fromBits;
            while (bits >= toBits) {
                bits -= toBits;
                out[written++] = (byte) ((accumulator >> bits) & max);
            }
        }
        if (pad) {
            if (bits > 0) {
                out[written++] = (byte) ((accumulator << (toBits - bits)) & max);
            }
        } else if (bits >= fromBits) {
            throw new IllegalArgumentException("bech32 data has " + bits + " bits of padding; at most "
                    + (fromBits - 1) + " are allowed");
        } else if (((accumulator << (toBits - bits)) & max) != 0) {
            throw new IllegalArgumentException("bech32 data has non-zero padding bits");
        }
        return Arrays.copyOf(out, written);
    }

    /** BIP-173's checksum over the expanded human-readable part and the values. */
    private static int polymod(String hrp, byte[] values) {
        int checksum = 1;
        for (int i = 0; i < hrp.length(); i++) {
            checksum = step(checksum, hrp.charAt(i) >> 5);
        }
        checksum = step(checksum, 0);
        for (int i = 0; i < hrp.length(); i++) {
            checksum = step(checksum, hrp.charAt(i) & 31);
        }
        for (byte value : values) {
            checksum = step(checksum, value);
        }
        return checksum;
    }

    private static int step(int checksum, int value) {
        int top = checksum >>> 25;
        int next = ((checksum & 0x1ffffff) << 5) ^ value;
        for (int i = 0; i < GENERATOR.length; i++) {
            if (((top >>> i) & 1) != 0) {
                next ^= GENERATOR[i];
            }
        }
        return next;
    }
}

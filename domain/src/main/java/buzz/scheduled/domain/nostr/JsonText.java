package buzz.scheduled.domain.nostr;

/**
 * Writing JSON strings the way NIP-01's canonical serialization (JavaScript's {@code JSON.stringify}) does:
 * {@code "} and {@code \} escaped, the five short escapes {@code \b \t \n \f \r}, every other C0 control as
 * <code>&#92;u00xx</code> with lowercase hex, and everything else (DEL, U+2028/U+2029, {@code / < > &}, all non-ASCII)
 * raw. General JSON writers differ here (uppercase hex, HTML-safe escaping), which changes event ids.
 */
final class JsonText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {
    }

    /**
     * Appends {@code value} as a quoted JSON string.
     *
     * @throws IllegalArgumentException when {@code value} holds a lone surrogate (it has no UTF-8 form)
     */
    static void appendQuoted(StringBuilder out, String value) {
        requireWellFormed("string", value);
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * Checks that {@code value} is well-formed UTF-16 (every surrogate is part of a pair).
     *
     * @throws IllegalArgumentException naming {@code field} and the index of the first lone surrogate
     */
    static void requireWellFormed(String field, String value) {
        int lone = indexOfLoneSurrogate(value);
        if (lone >= 0) {
            throw new IllegalArgumentException(field + " holds a lone surrogate \\u"
                    + Integer.toHexString(value.charAt(lone)) + " at index " + lone);
        }
    }

    /** Index of the first surrogate that is not part of a high-low pair, or -1. */
    static int indexOfLoneSurrogate(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            } else if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }
}

package buzz.scheduled.bootstrap.logging;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * The text format's {@code %msg}, with every control character escaped, so text from outside — a relay's
 * {@code OK}/{@code NOTICE} words, a request's path or fields — can never start a line of its own or hide what
 * follows: CR, LF and TAB become {@code \r}, {@code \n}, {@code \t}; the other C0 and C1 controls, DEL, the Unicode
 * line and paragraph separators (U+2028, U+2029) and the bidirectional overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) become {@code \}{@code uXXXX}. Text without any of them is returned as it is, unallocated. The JSON
 * format needs none of this: its encoder escapes strings itself.
 */
public final class EscapedMessageConverter extends MessageConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return escape(super.convert(event));
    }

    /** {@code text} with its control characters escaped as described above; null stays null. */
    public static String escape(String text) {
        if (text == null) {
            return null;
        }
        int first = -1;
        for (int i = 0; i < text.length(); i++) {
            if (needsEscape(text.charAt(i))) {
                first = i;
                break;
            }
        }
        if (first < 0) {
            return text;
        }
        StringBuilder escaped = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> escaped.append("\\n");
                case '\r' -> escaped.append("\\r");
                case '\t' -> escaped.append("\\t");
                default -> {
                    if (needsEscape(c)) {
                        escaped.append(String.format("\\u%04x", (int) c));
                    } else {
                        escaped.append(c);
                    }
                }
            }
        }
        return escaped.toString();
    }

    private static boolean needsEscape(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029'
                || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069');
    }
}

package buzz.scheduled.adapters.http;

/**
 * Request-derived text (method, path, query, a client's header value) made safe for one log line: a backslash is
 * doubled and every control character (C0, DEL, C1, the Unicode line and paragraph separators) is written as an
 * escape ({@code \n}, {@code \r}, {@code \t} or {@code \}{@code uXXXX}), so a client cannot start a log line of its
 * own. The escapes are JSON's, so the result is also a valid JSON string body once {@code "} is escaped.
 */
final class LogText {
    private LogText() {
    }

    /** {@code text} with backslashes and control characters escaped; {@code null} stays {@code "null"}. */
    static String escape(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String escape = switch (c) {
                case '\\' -> "\\\\";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                default -> c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029'
                        ? String.format("\\u%04x", (int) c) : null;
            };
            if (escape != null && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                if (escape != null) {
                    out.append(escape);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? text : out.toString();
    }
}

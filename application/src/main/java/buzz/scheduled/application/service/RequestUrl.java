package buzz.scheduled.application.service;

/**
 * The comparable form of an absolute {@code http}/{@code https} URL for the NIP-98 {@code u} check, normalised
 * the way RFC 3986 §6.2.2 and §6.2.3 allow without changing which resource it names:
 * <ul>
 *   <li>scheme and host in lowercase (§6.2.2.1);</li>
 *   <li>the hex digits of every percent-encoding in uppercase (§6.2.2.1), and a percent-encoded unreserved
 *       character ({@code A-Z a-z 0-9 - . _ ~}) decoded (§6.2.2.2);</li>
 *   <li>the scheme's default port dropped ({@code :80} for http, {@code :443} for https) and an empty path
 *       written {@code /} (§6.2.3).</li>
 * </ul>
 * Userinfo, path and query are otherwise compared exactly (a trailing slash, a different query order or an extra
 * parameter still differ). Browsers' {@code new URL(…).href}, which nostr-tools' {@code getToken} callers pass,
 * produce this form already except for the percent-encoding case; a configured {@code PUBLIC_BASE_URL} such as
 * {@code https://Sched.Example.COM:443} is brought to it here. Text that is not an absolute http(s) URL is kept
 * as it is, so it can only equal the very same text.
 */
final class RequestUrl {

    private RequestUrl() {
    }

    /** The normalised form of {@code url}; see the class documentation. */
    static String normalized(String url) {
        int schemeEnd = url.indexOf("://");
        if (schemeEnd <= 0) {
            return url;
        }
        String scheme = asciiLowercase(url.substring(0, schemeEnd));
        int defaultPort = switch (scheme) {
            case "http" -> 80;
            case "https" -> 443;
            default -> -1;
        };
        if (defaultPort < 0) {
            return url;
        }
        int authorityStart = schemeEnd + 3;
        int authorityEnd = authorityStart;
        while (authorityEnd < url.length() && "/?#".indexOf(url.charAt(authorityEnd)) < 0) {
            authorityEnd++;
        }
        String rest = url.substring(authorityEnd);
        if (rest.isEmpty() || rest.charAt(0) != '/') {
            rest = "/" + rest;
        }
        return scheme + "://" + authority(url.substring(authorityStart, authorityEnd), defaultPort)
                + percentEncodings(rest, false);
    }

    private static String authority(String authority, int defaultPort) {
        int at = authority.lastIndexOf('@');
        String userinfo = at < 0 ? "" : authority.substring(0, at + 1);
        String hostPort = authority.substring(at + 1);
        // The port follows the last colon that is outside an IPv6 literal ("[::1]:8080").
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort;
        String port = "";
        if (colon >= 0 && colon > hostPort.lastIndexOf(']')) {
            host = hostPort.substring(0, colon);
            port = hostPort.substring(colon + 1);
        }
        if (port.equals(Integer.toString(defaultPort)) || port.isEmpty()) {
            port = "";
        } else {
            port = ":" + port;
        }
        return userinfo + percentEncodings(host, true) + port;
    }

    /** Uppercase percent-encoding hex, decoded unreserved characters; other letters lowercased if asked (host). */
    private static String percentEncodings(String text, boolean lowercase) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' && i + 2 < text.length() && isHex(text.charAt(i + 1)) && isHex(text.charAt(i + 2))) {
                char value = (char) (Character.digit(text.charAt(i + 1), 16) * 16
                        + Character.digit(text.charAt(i + 2), 16));
                if (isUnreserved(value)) {
                    out.append(lowercase ? asciiLowercase(value) : value);
                } else {
                    out.append('%').append(Character.toUpperCase(text.charAt(i + 1)))
                            .append(Character.toUpperCase(text.charAt(i + 2)));
                }
                i += 2;
            } else {
                out.append(lowercase ? asciiLowercase(c) : c);
            }
        }
        return out.toString();
    }

    /** {@code A-Z} to {@code a-z}; every other character as it is (no locale, no Unicode case folding). */
    static char asciiLowercase(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    /**
     * {@code text} with {@code A-Z} lowercased and nothing else changed: protocol tokens (schemes, HTTP methods,
     * hex) compare this way, never with {@link String#equalsIgnoreCase}, which also folds {@code ſ} to {@code s}
     * and the Kelvin sign to {@code k}.
     */
    static String asciiLowercase(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            out.append(asciiLowercase(text.charAt(i)));
        }
        return out.toString();
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }
}

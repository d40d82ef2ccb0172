package buzz.scheduled.adapters.postgres;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the PostgreSQL database is, as JDBC wants it: a {@code jdbc:postgresql:} URL plus optional credentials.
 *
 * <p>Parsed from the operator's {@code DATABASE_URL} (README.md "Configuration"), which is either a libpq-style
 * {@code postgres://user:pass@host:port/db?param=value} (also {@code postgresql://}; user and password
 * percent-encoded; port defaults to 5432; query parameters such as {@code sslmode} are handed to the driver)
 * or a {@code jdbc:postgresql:} URL taken as it is (credentials may then sit in its query).
 *
 * @param jdbcUrl  a {@code jdbc:postgresql:} URL without credentials taken from a libpq-style URL
 * @param user     user name, when the URL named one outside the JDBC query
 * @param password password, when the URL named one outside the JDBC query; never printed by {@link #toString()}
 * @throws IllegalArgumentException when {@code jdbcUrl} is not a {@code jdbc:postgresql:} URL or a credential is blank
 */
public record DatabaseUrl(String jdbcUrl, Optional<String> user, Optional<String> password) {

    private static final String JDBC_PREFIX = "jdbc:postgresql:";
    private static final int DEFAULT_PORT = 5432;

    public DatabaseUrl {
        if (jdbcUrl == null || !jdbcUrl.startsWith(JDBC_PREFIX)) {
            throw new IllegalArgumentException("JDBC URL must start with " + JDBC_PREFIX);
        }
        if (user == null || password == null) {
            throw new IllegalArgumentException("user and password must be Optional, not null");
        }
        if (user.isPresent() && user.get().isEmpty()) {
            throw new IllegalArgumentException("database user name is empty");
        }
    }

    /**
     * Parses a {@code postgres://}, {@code postgresql://} or {@code jdbc:postgresql:} URL.
     *
     * @throws IllegalArgumentException with a message saying what is wrong; the message never contains the
     *                                  password
     */
    public static DatabaseUrl parse(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("database URL is empty");
        }
        String trimmed = url.strip();
        if (trimmed.startsWith(JDBC_PREFIX)) {
            return new DatabaseUrl(trimmed, Optional.empty(), Optional.empty());
        }
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("postgres://") && !lower.startsWith("postgresql://")) {
            int colon = trimmed.indexOf(':');
            String scheme = colon > 0 ? trimmed.substring(0, colon) : "(none)";
            throw new IllegalArgumentException("database URL must start with postgres://, postgresql:// or "
                    + JDBC_PREFIX + " (scheme was " + scheme + ")");
        }
        return parseLibpq(trimmed);
    }

    private static DatabaseUrl parseLibpq(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            // The reason names the offending index, never the URL text (which holds the password).
            throw new IllegalArgumentException("database URL is not a valid URI at index " + e.getIndex()
                    + ": " + e.getReason());
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("database URL names no host (expected postgres://user:pass@host:port/db)");
        }
        int port = uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort();
        String path = uri.getRawPath();
        if (path == null || path.length() <= 1) {
            throw new IllegalArgumentException("database URL names no database (expected postgres://user:pass@host:port/db)");
        }
        String database = percentDecode(path.substring(1), "database name");
        if (database.contains("/")) {
            throw new IllegalArgumentException("database URL path must be a single database name");
        }
        Optional<String> user = Optional.empty();
        Optional<String> password = Optional.empty();
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String rawUser = colon < 0 ? userInfo : userInfo.substring(0, colon);
            user = Optional.of(percentDecode(rawUser, "user name")).filter(u -> !u.isEmpty());
            if (colon >= 0) {
                password = Optional.of(percentDecode(userInfo.substring(colon + 1), "password"));
            }
        }
        StringBuilder jdbc = new StringBuilder(JDBC_PREFIX).append("//")
                .append(host).append(':').append(port).append('/').append(percentEncodePathSegment(database));
        if (uri.getRawQuery() != null && !uri.getRawQuery().isEmpty()) {
            jdbc.append('?').append(uri.getRawQuery());
        }
        return new DatabaseUrl(jdbc.toString(), user, password);
    }

    /**
     * Whether the JDBC URL's query names the driver property {@code name} (exact spelling, as PgJDBC reads it).
     */
    public boolean hasParameter(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a parameter name is needed");
        }
        int query = jdbcUrl.indexOf('?');
        if (query < 0) {
            return false;
        }
        for (String pair : jdbcUrl.substring(query + 1).split("&")) {
            int equals = pair.indexOf('=');
            if ((equals < 0 ? pair : pair.substring(0, equals)).equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * This URL with the driver property {@code name=value} added to its query, unless the query already names it
     * (the operator's own setting wins).
     *
     * @param name  a PgJDBC connection property, e.g. {@code prepareThreshold}
     * @param value its value, URL-safe as it is (letters, digits, {@code -._})
     * @throws IllegalArgumentException when the name or value is empty or needs escaping
     */
    public DatabaseUrl withDefaultParameter(String name, String value) {
        if (name == null || value == null || !name.matches("[A-Za-z][A-Za-z0-9_]*") || !value.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("a parameter needs a plain name and value, got " + name + "=" + value);
        }
        if (hasParameter(name)) {
            return this;
        }
        String separator = jdbcUrl.indexOf('?') < 0 ? "?" : jdbcUrl.endsWith("?") || jdbcUrl.endsWith("&") ? "" : "&";
        return new DatabaseUrl(jdbcUrl + separator + name + "=" + value, user, password);
    }

    // URI user info and paths are percent-encoded; '+' is a literal plus there (unlike form encoding).
    private static String percentDecode(String raw, String what) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    throw new IllegalArgumentException("database URL " + what + " has a truncated %-escape");
                }
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw new IllegalArgumentException("database URL " + what + " has an invalid %-escape");
                }
                out.write((hi << 4) | lo);
                i += 2;
            } else {
                byte[] bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(bytes, 0, bytes.length);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String percentEncodePathSegment(String segment) {
        StringBuilder out = new StringBuilder();
        for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        String shownUrl = jdbcUrl.replaceAll("(?i)([?&]password=)[^&]*", "$1***");
        return "DatabaseUrl[jdbcUrl=" + shownUrl + ", user=" + user.orElse("(from URL or driver default)")
                + ", password=" + (password.isPresent() ? "***" : "(none)") + "]";
    }
}

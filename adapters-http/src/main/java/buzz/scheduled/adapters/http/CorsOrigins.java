package buzz.scheduled.adapters.http;

import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * {@code BUZZ_CORS_ORIGINS}: which browser origins may call the owner routes (the Fetch standard's CORS protocol).
 * Empty: none (no CORS headers, preflights refused); {@code *}: any origin; otherwise a set of exact origins
 * ({@code scheme://host[:port]}, lowercase, no path), compared with the request's {@code Origin} header.
 *
 * @param any     whether every origin is allowed
 * @param origins the allowed origins when not {@code any}
 */
public record CorsOrigins(boolean any, Set<String> origins) {
    public CorsOrigins {
        if (origins == null) {
            throw new IllegalArgumentException("origins must not be null");
        }
        origins = Set.copyOf(origins);
        if (any && !origins.isEmpty()) {
            throw new IllegalArgumentException("'*' cannot be combined with a list of origins");
        }
    }

    /** No CORS. */
    public static CorsOrigins none() {
        return new CorsOrigins(false, Set.of());
    }

    /**
     * Parses the variable's value: empty or blank for none, {@code *}, or a comma list of origins.
     *
     * @throws IllegalArgumentException naming the first value that is not an origin
     */
    public static CorsOrigins parse(String value) {
        if (value == null || value.isBlank()) {
            return none();
        }
        if (value.trim().equals("*")) {
            return new CorsOrigins(true, Set.of());
        }
        Set<String> origins = new LinkedHashSet<>();
        for (String part : value.split(",", -1)) {
            String origin = part.trim();
            if (origin.equals("*")) {
                throw new IllegalArgumentException("'*' must stand alone, not in a list");
            }
            origins.add(checkedOrigin(origin));
        }
        return new CorsOrigins(false, origins);
    }

    /** Whether a request from {@code origin} (the {@code Origin} header) may read the answer. */
    public boolean allows(String origin) {
        return origin != null && (any || origins.contains(origin.toLowerCase(Locale.ROOT)));
    }

    /** Whether any origin at all is allowed. */
    public boolean enabled() {
        return any || !origins.isEmpty();
    }

    private static String checkedOrigin(String origin) {
        URI uri;
        try {
            uri = URI.create(origin);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("\"" + origin + "\" is not an origin (scheme://host[:port])");
        }
        String scheme = uri.getScheme();
        if (!("http".equals(scheme) || "https".equals(scheme)) || uri.getHost() == null
                || !(uri.getRawPath() == null || uri.getRawPath().isEmpty()) || uri.getRawQuery() != null
                || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("\"" + origin + "\" is not an origin (scheme://host[:port], "
                    + "no path, no trailing slash)");
        }
        return origin.toLowerCase(Locale.ROOT);
    }
}

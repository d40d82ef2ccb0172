package buzz.scheduled.adapters.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CORS headers of the API (the Fetch standard's CORS protocol). The NIP-11 document answers any origin with
 * {@code Access-Control-Allow-Origin}, {@code -Headers} and {@code -Methods}, as NIP-11 requires; the owner routes
 * answer only the origins in {@code BUZZ_CORS_ORIGINS}. A preflight ({@code OPTIONS} with
 * {@code Access-Control-Request-Method}) is answered {@code 204} with the allowed methods and headers, or
 * {@code 403 forbidden} for an origin that is not allowed.
 */
final class Cors {
    /** Request headers an owner's browser client sends. */
    static final String OWNER_HEADERS = "Authorization, Content-Type, Idempotency-Key, If-Match";
    /** Answer headers a browser client may read. */
    static final String EXPOSED_HEADERS = "ETag, Location, Retry-After, WWW-Authenticate";
    /** How long a browser may cache a preflight answer, in seconds. */
    static final String MAX_AGE = "600";

    private final CorsOrigins origins;

    Cors(CorsOrigins origins) {
        this.origins = origins;
    }

    /** The headers NIP-11 requires on the information document, for any origin. */
    static Map<String, String> infoHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Access-Control-Allow-Origin", "*");
        headers.put("Access-Control-Allow-Headers", "Accept, Content-Type");
        headers.put("Access-Control-Allow-Methods", "GET, OPTIONS");
        return headers;
    }

    /** The preflight answer for the NIP-11 document: always allowed. */
    static Answer infoPreflight() {
        Map<String, String> headers = infoHeaders();
        headers.put("Access-Control-Max-Age", MAX_AGE);
        return new Answer.Empty(204, headers);
    }

    /** The preflight answer for an owner route that allows {@code methods}. */
    Answer ownerPreflight(String origin, String methods) {
        if (origin == null) {
            return new Answer.Empty(204, Map.of("Allow", methods + ", OPTIONS"));
        }
        if (!origins.allows(origin)) {
            return new Answer.Problem(403, "forbidden", "origin " + origin + " may not call this API from a "
                    + "browser (BUZZ_CORS_ORIGINS)", Map.of("Vary", "Origin"));
        }
        Map<String, String> headers = new LinkedHashMap<>(ownerHeaders(origin));
        headers.put("Access-Control-Allow-Methods", methods + ", OPTIONS");
        headers.put("Access-Control-Allow-Headers", OWNER_HEADERS);
        headers.put("Access-Control-Max-Age", MAX_AGE);
        return new Answer.Empty(204, headers);
    }

    /** The CORS headers to add to an owner route's answer for a request from {@code origin} (none when not allowed). */
    Map<String, String> ownerHeaders(String origin) {
        if (!origins.enabled()) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Vary", "Origin");
        if (origins.allows(origin)) {
            headers.put("Access-Control-Allow-Origin", origins.any() ? "*" : origin);
            headers.put("Access-Control-Expose-Headers", EXPOSED_HEADERS);
        }
        return headers;
    }
}

package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.nostr.PublicKey;
import java.util.List;
import java.util.Map;

/**
 * An authenticated operator request, copied out of the HTTP exchange so a route can run on another thread.
 *
 * @param operator   the NIP-98 authenticated pubkey, one of {@code RELAY_OPERATOR_PUBKEYS}
 * @param pathParams path parameters by name ({@code channel}, {@code pubkey}), URL-decoded
 * @param query      query parameters, each with every value given, in order
 * @param headers    the request headers a route reads ({@link OwnerRequest#HEADERS}), by lowercase name
 * @param body       the raw body (empty when none)
 */
record OperatorRequest(PublicKey operator, Map<String, String> pathParams, Map<String, List<String>> query,
                       Map<String, List<String>> headers, byte[] body) {

    /** Every value of header {@code name} (lowercase), empty when absent. */
    List<String> header(String name) {
        return headers.getOrDefault(name, List.of());
    }
}

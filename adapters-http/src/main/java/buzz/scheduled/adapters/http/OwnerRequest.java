package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.nostr.PublicKey;
import java.util.List;
import java.util.Map;

/**
 * An authenticated owner request, copied out of the HTTP exchange so a route can run on another thread.
 *
 * @param owner      the NIP-98 authenticated pubkey; every read and write is scoped to it (docs/openapi.yaml, info)
 * @param pathParams path parameters by name ({@code id})
 * @param query      query parameters, each with every value given, in order
 * @param headers    the request headers a route reads, by lowercase name, each with every value given
 * @param body       the raw body (empty when none)
 */
record OwnerRequest(PublicKey owner, Map<String, String> pathParams, Map<String, List<String>> query,
                    Map<String, List<String>> headers, byte[] body) {

    /** Header names the owner routes read. */
    static final List<String> HEADERS = List.of("idempotency-key", "if-match", "content-type");

    /** Every value of header {@code name} (lowercase), empty when absent. */
    List<String> header(String name) {
        return headers.getOrDefault(name, List.of());
    }
}

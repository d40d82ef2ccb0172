package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.NostrEvent;

/**
 * Authenticates an HTTP request by its NIP-98 {@code Authorization: Nostr <base64 event>} header: a signed
 * kind-27235 event naming the URL (compared after RFC 3986 §6.2.2 normalisation: scheme and host case, default
 * port) and the method (any case), and the body's SHA-256 when it carries a {@code payload} tag (hex in any case),
 * created within 60 seconds of the server clock, and whose signature was not used before.
 *
 * <p>In two steps, so a server reads nothing large from a caller it cannot name: {@link #checkHeader} checks
 * everything the header alone decides (encoding, kind, {@code created_at} window, {@code u}, {@code method}, the
 * BIP-340 signature) before the body is read; {@link #checkBody} then checks the {@code payload} tag against the
 * body and records the header as used (the replay guard). {@link #authenticate} does both.
 */
public interface AuthenticateRequestUseCase {

    /** Checks the request in one step; every refusal says which check failed. */
    default AuthenticationResult authenticate(AuthenticateRequestCommand command) {
        return switch (checkHeader(command.method(), command.url(), command.authorization())) {
            case HeaderCheck.Refused refused -> new AuthenticationResult.Refused(refused.message());
            case HeaderCheck.Verified verified -> checkBody(verified, command.body());
        };
    }

    /**
     * The checks that need no body.
     *
     * @param method        the HTTP method as received, e.g. {@code POST}
     * @param url           {@code PUBLIC_BASE_URL} + path + query
     * @param authorization the {@code Authorization} header value, {@code null} when absent
     */
    HeaderCheck checkHeader(String method, String url, String authorization);

    /**
     * The {@code payload} check and the replay guard, for a header {@link #checkHeader} verified.
     *
     * @param body the raw request body, empty when there is none
     * @throws RuntimeException when the replay store cannot answer (the database is unreachable)
     */
    AuthenticationResult checkBody(HeaderCheck.Verified header, byte[] body);

    /** What the header alone says. */
    sealed interface HeaderCheck {
        /**
         * A well-formed, authentic header for this method and URL; only {@link #checkHeader} makes one.
         *
         * @param event the kind-27235 event, signature verified
         */
        record Verified(NostrEvent event) implements HeaderCheck {
        }

        /** Refused; {@code message} says which check failed (for a {@code 401} answer). */
        record Refused(String message) implements HeaderCheck {
        }
    }
}

package buzz.scheduled.application.port.in;

/**
 * Authenticates an HTTP request by its NIP-98 {@code Authorization: Nostr <base64 event>} header: a signed
 * kind-27235 event naming the URL (compared after RFC 3986 §6.2.2 normalisation: scheme and host case, default
 * port) and the method (any case), and the body's SHA-256 when it carries a {@code payload} tag (hex in any case),
 * created within 60 seconds of the server clock, and whose signature was not used before.
 */
public interface AuthenticateRequestUseCase {

    /** Checks the request; every refusal says which check failed. */
    AuthenticationResult authenticate(AuthenticateRequestCommand command);
}

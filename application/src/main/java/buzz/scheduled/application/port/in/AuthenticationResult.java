package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;

/** The outcome of NIP-98 request authentication. */
public sealed interface AuthenticationResult permits AuthenticationResult.Authenticated, AuthenticationResult.Refused {

    /** The request was signed by {@code pubkey}. */
    record Authenticated(PublicKey pubkey) implements AuthenticationResult {
        public Authenticated {
            if (pubkey == null) {
                throw new IllegalArgumentException("pubkey is missing");
            }
        }
    }

    /** The request is not authenticated; {@code message} says which check failed (for a 401 answer). */
    record Refused(String message) implements AuthenticationResult {
        public Refused {
            if (message == null || message.isBlank()) {
                throw new IllegalArgumentException("message is missing");
            }
        }
    }
}

package buzz.scheduled.adapters.relay;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.domain.nostr.NostrEvent;

import java.util.List;

/**
 * Makes the NIP-42 authentication event: kind 22242, tags {@code ["relay", <relay url>]} and
 * {@code ["challenge", <challenge>]}, empty content, signed (BIP-340) with the sidecar's key.
 */
@FunctionalInterface
public interface AuthEventSigner {

    /** NIP-42's kind for client authentication. */
    int AUTH_KIND = 22242;

    /**
     * @param relayUrl  the relay URL as the client connected to it
     * @param challenge the string from the relay's {@code ["AUTH", <challenge>]}
     * @param createdAt Unix seconds, the current time
     * @return the signed event
     */
    NostrEvent signAuth(String relayUrl, String challenge, long createdAt);

    /** AUTH events signed by {@code signer} (normally the sidecar's key). */
    static AuthEventSigner with(Bip340Signer signer) {
        if (signer == null) {
            throw new IllegalArgumentException("signer is required");
        }
        return (relayUrl, challenge, createdAt) -> signer.sign(createdAt, AUTH_KIND,
                List.of(List.of("relay", relayUrl), List.of("challenge", challenge)), "");
    }
}

package buzz.scheduled.adapters.relay;

import buzz.scheduled.domain.nostr.NostrEvent;

/**
 * Makes the NIP-42 authentication event: kind 22242, tags {@code ["relay", <relay url>]} and
 * {@code ["challenge", <challenge>]}, empty content, signed (BIP-340) with the sidecar's key.
 */
@FunctionalInterface
public interface AuthEventSigner {

    /**
     * @param relayUrl  the relay URL as the client connected to it
     * @param challenge the string from the relay's {@code ["AUTH", <challenge>]}
     * @param createdAt Unix seconds, the current time
     * @return the signed event
     */
    NostrEvent signAuth(String relayUrl, String challenge, long createdAt);
}

package buzz.scheduled.adapters.relay;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;

/**
 * Client-to-relay messages carrying an event (NIP-01 {@code EVENT}, NIP-42 {@code AUTH}). The event is written by
 * the domain's {@link NostrEventJson#write}: the exact signed values in NIP-01 field order with NIP-01 string
 * escaping, so the relay re-hashes to the same id.
 */
final class EventWire {

    private EventWire() {
    }

    /** {@code ["EVENT", <event>]}. */
    static String eventMessage(NostrEvent event) {
        return "[\"EVENT\"," + NostrEventJson.write(event) + "]";
    }

    /** {@code ["AUTH", <event>]} (NIP-42). */
    static String authMessage(NostrEvent event) {
        return "[\"AUTH\"," + NostrEventJson.write(event) + "]";
    }
}

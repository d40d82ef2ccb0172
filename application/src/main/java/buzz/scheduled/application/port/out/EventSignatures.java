package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.NostrEvent;

/**
 * Checks that an event's id is the hash of its content and its signature verifies (NIP-01, BIP-340).
 */
public interface EventSignatures {

    /** Verifies {@code event}; never throws for a bad event. */
    Verdict verify(NostrEvent event);

    /** The outcome of a verification. */
    sealed interface Verdict {
        /** The id matches the content and the BIP-340 signature verifies over it. */
        record Valid() implements Verdict {
        }

        /** Why not, e.g. "id does not match content", "signature does not verify". */
        record Invalid(String reason) implements Verdict {
        }
    }
}

package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides whether a well-formed Nostr event is authentic (NIP-01, BIP-340): its id is recomputed from the
 * canonical serialization (never trusted), its pubkey must be an x coordinate on secp256k1, and its signature must
 * verify over the 32 id bytes.
 */
public interface EventSignatures {

    /** Checks {@code event}; never throws for a bad event, the reason is in the verdict. */
    Verdict verify(NostrEvent event);

    /**
     * Checks each of {@code events} (a batch create's): the verdicts in order, each exactly what {@link #verify} answers
     * for its event. An adapter may share work between the events (BIP-340 batch verification); this default checks
     * them one by one.
     */
    default List<Verdict> verifyAll(List<NostrEvent> events) {
        List<Verdict> verdicts = new ArrayList<>(events.size());
        for (NostrEvent event : events) {
            verdicts.add(verify(event));
        }
        return verdicts;
    }

    /** The answer for one event. */
    sealed interface Verdict permits Verdict.Valid, Verdict.Invalid {

        /** Id, pubkey and signature are all right. */
        record Valid() implements Verdict {
        }

        /** The event is not authentic; {@code reason} says which check failed, e.g. "id does not match content". */
        record Invalid(String reason) implements Verdict {
            public Invalid {
                if (reason == null || reason.isBlank()) {
                    throw new IllegalArgumentException("reason is missing");
                }
            }
        }
    }
}

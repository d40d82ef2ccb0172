package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.domain.nostr.PublicKey;
import java.util.Set;

/**
 * Where the sync of the group state stands on one connection ({@link FeedConnection}); it starts again from
 * {@link Paging} when the relay accepts NIP-42 AUTH.
 */
sealed interface SyncPhase {

    /** Reading the stored backlog page by page; moderation events are held until every page is read. */
    record Paging(GroupBacklog backlog) implements SyncPhase {
    }

    /**
     * Every page is read, but none of it was group state signed by a key the relay does not confirm as its own:
     * reading which keys did sign group state ({@code otherSigners}), to say so.
     */
    record Probing(Set<PublicKey> otherSigners) implements SyncPhase {
    }

    /** The probe is done: unavailable until group state signed by the key arrives live. */
    record AwaitingSignedState() implements SyncPhase {
    }

    /** Every page is read and the key is trusted: moderation events are carried out as they arrive. */
    record Synced() implements SyncPhase {
    }
}

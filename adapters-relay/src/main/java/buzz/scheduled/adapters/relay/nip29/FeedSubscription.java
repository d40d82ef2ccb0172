package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.domain.nostr.PublicKey;
import java.util.Set;

/**
 * Which of the feed's subscriptions a relay message names, read against the state of its connection
 * ({@link FeedConnection}): a subscription id is only a string on the wire.
 */
sealed interface FeedSubscription {

    /** The live subscription's id. */
    String LIVE_ID = "buzz-nip29";
    /** Prefix of the backlog pages' subscription ids. */
    String PAGE_PREFIX = "buzz-nip29-page-";
    /** The subscription that looks for group state by other keys when the relay's key signed none. */
    String PROBE_ID = "buzz-nip29-probe";

    /** The live subscription, open for as long as the connection. */
    record Live() implements FeedSubscription {
    }

    /** The backlog page being read, of {@code backlog}. */
    record Page(String id, GroupBacklog backlog) implements FeedSubscription {
    }

    /** The probe, while it is being read; {@code otherSigners} collects the keys that signed group state. */
    record Probe(Set<PublicKey> otherSigners) implements FeedSubscription {
    }

    /** None open: a page already ended, the probe after its end, or an id that is not ours. */
    record Stale() implements FeedSubscription {
    }
}

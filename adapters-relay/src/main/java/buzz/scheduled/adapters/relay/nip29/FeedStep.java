package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.domain.nostr.NostrEvent;
import org.slf4j.event.Level;

/**
 * What a {@link FeedConnection} decided, for the feed to carry out on the connection's link, in order. The
 * connection holds the sync's state; the feed owns the link, the timer, the moderation thread and whether this
 * connection is still the current one.
 */
sealed interface FeedStep {

    /** Send {@code text} to the relay. */
    record Send(String text) implements FeedStep {
    }

    /** In {@code millis}, tell the connection {@code page} is refused for {@code refusal} if nothing of it came. */
    record WatchPage(String page, long millis, PageRefusal refusal) implements FeedStep {
    }

    /** Send AUTH for the link's challenge; without one yet, wait for it ({@link FeedConnection#challenged}). */
    record Authenticate() implements FeedStep {
    }

    /** Give the connection up (it is made again with backoff). */
    record GiveUp(String why) implements FeedStep {
    }

    /** Carry out a moderation event (once per process). */
    record Moderate(NostrEvent event, boolean live) implements FeedStep {
    }

    /** The relay refused a page of {@code refused} events: asking for pages of {@code lowered.size()} now. */
    record PageSizeLowered(int refused, PageSize.Lowered lowered, PageRefusal refusal) implements FeedStep {
    }

    /** Every page is read and the key is trusted: the directory is in sync (when still current). */
    record BacklogInSync(SigningKey key, int signedState, int pages, int pageSize) implements FeedStep {
    }

    /** The first group state signed by an unconfirmed key arrived live: in sync now (when still current). */
    record ConfirmedLive(SigningKey key) implements FeedStep {
    }

    /** The backlog had no group state signed by an unconfirmed key: unavailable, {@code why} (when current). */
    record Unconfirmed(String why) implements FeedStep {
    }

    /** A line for the feed's log. */
    record Log(Level level, String line) implements FeedStep {
    }
}

package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.notice.MessageOutcome;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.List;

/**
 * The queue of outcomes to tell owners (docs/nostr.md, "Notices"). The store itself queues an outcome in the same
 * transaction that makes it (a failure of any reason, or a publication of an owner who chose
 * {@link buzz.scheduled.domain.notice.NoticeChoice#ALL}), and only while notices are switched on; the sender takes
 * queued outcomes under a lease, and marks them sent once a relay took the notice, so each is told at least once.
 */
public interface NoticeOutbox {

    /**
     * Switches the queueing on or off for every node on the store ({@code BUZZ_NOTICES}); outcomes made while it is off
     * are never queued.
     */
    void switchTo(boolean on);

    /**
     * Takes up to {@code max} queued outcomes due for sending, oldest first, and keeps other senders off them for
     * {@code lease} (after which they are due again, unless marked sent).
     */
    List<Queued> take(int max, Duration lease);

    /** How many notices were sent to {@code owner} within the last {@code window}, on the store's clock. */
    int sentWithin(PublicKey owner, Duration window);

    /** Marks {@code ids} (all of {@code owner}) sent, as the notice {@code wrapId}, and counts it for the owner. */
    void sent(PublicKey owner, List<Long> ids, EventId wrapId);

    /** Makes {@code ids} due again after {@code delay}, keeping {@code why} (the last error, for operators). */
    void retryLater(List<Long> ids, Duration delay, String why);

    /**
     * A queued outcome.
     *
     * @param id       the queue's id
     * @param outcome  what is told
     * @param attempts how many times it was taken before this one
     */
    record Queued(long id, MessageOutcome outcome, int attempts) {
        public Queued {
            if (outcome == null || attempts < 0) {
                throw new IllegalArgumentException("a queued notice needs an outcome and a non-negative attempt count");
            }
        }
    }
}

package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.Optional;

/**
 * The per-owner rate of writes (create, edit, cancel, send now, a batch's events, a bulk cancel;
 * docs/scheduled-messages.md §4): each write takes one from the owner's allowance before anything else is checked.
 * Implementations keep their state in memory per node (bootstrap: a token bucket per owner pubkey, bounded in how
 * many owners it tracks); tests use fakes.
 */
public interface OwnerWriteLimiter {

    /** No limit: every write is allowed. */
    OwnerWriteLimiter UNLIMITED = (owner, writes) -> Optional.empty();

    /**
     * Takes one write from {@code owner}'s allowance.
     *
     * @return empty when the write may go ahead; otherwise how long until the owner's next write would be allowed
     *         (positive), and nothing was taken
     */
    default Optional<Duration> tryWrite(PublicKey owner) {
        return tryWrites(owner, 1);
    }

    /**
     * Takes {@code writes} writes from {@code owner}'s allowance at once, all or none (a batch of that many events).
     * A batch larger than the allowance can ever hold (the burst) goes ahead when the allowance is full, and the writes
     * beyond it are owed: the owner's next write waits until they are paid back at the refill rate, so a batch never
     * buys more than the rate over time.
     *
     * @param writes how many writes, at least 1
     * @return empty when all were taken; otherwise how long until the owner's allowance covers them (or is full, for
     *         a batch larger than the burst), and nothing was taken
     */
    Optional<Duration> tryWrites(PublicKey owner, int writes);
}

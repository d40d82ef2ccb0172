package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.Optional;

/**
 * The per-owner rate of writes (create, edit, cancel, send now; docs/scheduled-messages.md §4): each write takes one
 * from the owner's allowance before anything else is checked. Implementations keep their state in memory per node
 * (bootstrap: a token bucket per owner pubkey, bounded in how many owners it tracks); tests use fakes.
 */
public interface OwnerWriteLimiter {

    /** No limit: every write is allowed. */
    OwnerWriteLimiter UNLIMITED = owner -> Optional.empty();

    /**
     * Takes one write from {@code owner}'s allowance.
     *
     * @return empty when the write may go ahead; otherwise how long until the owner's next write would be allowed
     *         (positive), and nothing was taken
     */
    Optional<Duration> tryWrite(PublicKey owner);
}

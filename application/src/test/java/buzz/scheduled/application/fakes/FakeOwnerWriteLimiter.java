package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A write limiter for tests: unlimited until {@link #allow} gives an owner a number of writes, after which that
 * owner's writes are refused with the given wait (a batch asking for more than are left is refused whole); it counts
 * every write asked for.
 */
public final class FakeOwnerWriteLimiter implements OwnerWriteLimiter {
    private final Map<PublicKey, Integer> left = new HashMap<>();
    private final Map<PublicKey, Integer> asked = new HashMap<>();
    private Duration wait = Duration.ofSeconds(1);

    /** From now on {@code owner} may make {@code writes} more writes; later ones wait {@code refusedWait}. */
    public synchronized FakeOwnerWriteLimiter allow(PublicKey owner, int writes, Duration refusedWait) {
        left.put(owner, writes);
        wait = refusedWait;
        return this;
    }

    @Override
    public synchronized Optional<Duration> tryWrites(PublicKey owner, int writes) {
        asked.merge(owner, writes, Integer::sum);
        Integer remaining = left.get(owner);
        if (remaining == null) {
            return Optional.empty();
        }
        if (remaining < writes) {
            return Optional.of(wait);
        }
        left.put(owner, remaining - writes);
        return Optional.empty();
    }

    /** How many writes {@code owner} asked for, allowed or not. */
    public synchronized int asked(PublicKey owner) {
        return asked.getOrDefault(owner, 0);
    }
}

package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.out.ReplayStore;
import buzz.scheduled.domain.nostr.Signature;
import java.time.Duration;
import java.time.Instant;

/**
 * A replay store that answers like the one it wraps, after {@link #delay} when a test sets one: what the guard sees
 * when the database pool has no connection to lend.
 */
final class SlowReplayStore implements ReplayStore {
    private final ReplayStore store;
    private volatile Duration delay = Duration.ZERO;

    SlowReplayStore(ReplayStore store) {
        this.store = store;
    }

    /** Every later answer waits {@code wait} first. */
    void delay(Duration wait) {
        this.delay = wait;
    }

    @Override
    public boolean firstUse(Signature signature, Instant keepUntil) {
        try {
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the store was slow", e);
        }
        return store.firstUse(signature, keepUntil);
    }
}

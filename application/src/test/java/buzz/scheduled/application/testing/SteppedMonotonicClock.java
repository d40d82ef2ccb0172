package buzz.scheduled.application.testing;

import buzz.scheduled.application.support.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link MonotonicClock} that stands still until a test steps it, so a test moves past a deadline at once instead
 * of waiting for real time to pass. Whoever waits for a deadline in real time (a condition, a queue, a signal) must
 * still be woken after a step: the step only changes what the clock reads. Thread-safe.
 */
public final class SteppedMonotonicClock implements MonotonicClock {
    /** An arbitrary first reading: like {@link System#nanoTime()}'s, it means nothing on its own. */
    public static final long START = 1_000_000_000_000L;

    private final AtomicLong now = new AtomicLong(START);

    @Override
    public long nanoTime() {
        return now.get();
    }

    /**
     * Moves the clock forward by {@code step}.
     *
     * @return the reading after the step
     * @throws IllegalArgumentException for a negative step (a monotonic clock never goes back)
     */
    public long advance(Duration step) {
        if (step == null || step.isNegative()) {
            throw new IllegalArgumentException("a monotonic clock only moves forward, not by " + step);
        }
        return now.addAndGet(step.toNanos());
    }
}

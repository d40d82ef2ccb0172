package buzz.scheduled.domain.schedule;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with "equal jitter" for transient relay failures (docs/delivery.md "The hot path", step 4): the
 * n-th retry waits {@code d/2 + jitter·d/2} where {@code d = min(cap, base·2^(n-1))} and jitter is uniform in [0, 1).
 *
 * @param base   delay before the first retry (before jitter), at least 1 ms
 * @param cap    largest delay (before jitter)
 * @param jitter source of uniform values in [0, 1); injected so tests are repeatable
 */
public record Backoff(Duration base, Duration cap, DoubleSupplier jitter) {
    public Backoff {
        if (base == null) {
            throw new IllegalArgumentException("backoff needs a base delay");
        }
        if (cap == null) {
            throw new IllegalArgumentException("backoff needs a cap");
        }
        if (jitter == null) {
            throw new IllegalArgumentException("backoff needs a jitter source");
        }
        if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < base <= cap, got " + base + " and " + cap);
        }
        // Delays are computed in whole milliseconds: a shorter base would truncate to 0 and never grow.
        if (base.toMillis() < 1) {
            throw new IllegalArgumentException("backoff base must be at least 1 ms, got " + base);
        }
    }

    /**
     * The delay before retry number {@code attempt}.
     *
     * @param attempt 1 for the first retry
     * @throws IllegalArgumentException when {@code attempt} is below 1 or jitter is outside [0, 1)
     */
    public Duration delay(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be 1 or more, got " + attempt);
        }
        double u = jitter.getAsDouble();
        if (!(u >= 0.0 && u < 1.0)) {
            throw new IllegalArgumentException("jitter must be in [0, 1), got " + u);
        }
        long baseMillis = base.toMillis();
        int shift = Math.min(attempt - 1, 40);
        long exponential = baseMillis > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : baseMillis << shift;
        long d = Math.min(cap.toMillis(), exponential);
        long half = d / 2;
        return Duration.ofMillis(half + (long) (u * (d - half)));
    }
}

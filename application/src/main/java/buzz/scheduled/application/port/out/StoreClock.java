package buzz.scheduled.application.port.out;

import java.time.Instant;

/**
 * The store's clock (PostgreSQL's {@code now()}) as this process knows it without a round trip: the wall clock
 * corrected by the latest measured difference between the two. The owner side takes every due-time decision on it
 * (admission's {@code time_in_past} and {@code time_too_far}, send-now's due time and relay window), so those agree
 * with delivery, which decides on the database clock itself, even when the host's clock drifts.
 */
@FunctionalInterface
public interface StoreClock {

    /** The store's current instant, as well as this process can tell it (to within half a probe round trip). */
    Instant now();
}

package buzz.scheduled.domain.schedule;

import java.time.Duration;
import java.time.Instant;

/**
 * The lateness limit ({@code BUZZ_MAX_LATENESS_SECONDS}, docs/delivery.md): past it a message fails {@code expired}.
 */
public final class Lateness {
    private Lateness() {
    }

    /** Whether {@code at} is more than {@code maxLateness} after {@code dueAt}. */
    public static boolean expired(Instant dueAt, Duration maxLateness, Instant at) {
        return at.isAfter(dueAt.plus(maxLateness));
    }
}

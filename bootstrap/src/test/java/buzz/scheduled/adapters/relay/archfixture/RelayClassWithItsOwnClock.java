package buzz.scheduled.adapters.relay.archfixture;

import java.time.Clock;
import java.time.LocalDateTime;

/** A deliberate violation for ArchitectureRulesTest: adapter code reading the system clock three ways. */
public final class RelayClassWithItsOwnClock {
    private final Clock clock = Clock.systemUTC();

    /** Milliseconds from the system clock. */
    public long millis() {
        return System.currentTimeMillis();
    }

    /** The local date-time. */
    public LocalDateTime local() {
        return LocalDateTime.now();
    }

    /** Through java.time.Clock. */
    public long viaClock() {
        return clock.millis();
    }
}

package buzz.scheduled.application.archfixture;

import java.time.Instant;

/** A deliberate violation for ArchitectureRulesTest: an application class reading the system clock. */
public final class ApplicationClassReadingTheClock {
    /** Reads the system clock, which only bootstrap may do. */
    public Instant dueCheck() {
        return Instant.now();
    }
}

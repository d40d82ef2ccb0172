package buzz.scheduled.application.port.out;

import java.time.Instant;

/** The one clock of the application; tests set it, production reads the system clock. */
public interface WallClock {

    /** The current instant. */
    Instant now();
}

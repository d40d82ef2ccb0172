package buzz.scheduled.application.port.out;

import java.time.Instant;

/** The current time as the application sees it; the only clock application code may read. */
public interface WallClock {
    Instant now();
}

package buzz.scheduled.application.port.out;

import java.time.Instant;

/** The sidecar's clock (admission and NIP-98 windows); delivery decisions use the database clock instead. */
public interface WallClock {
    /** The current instant. */
    Instant now();
}

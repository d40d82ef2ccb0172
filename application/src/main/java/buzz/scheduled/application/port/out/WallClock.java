package buzz.scheduled.application.port.out;

import java.time.Instant;

/**
 * This host's clock: what the database watch measures against the database's to make the {@link StoreClock}, and what
 * dates this process's own NIP-42 AUTH events. Time decisions (due times, leases, NIP-98's window) use the database's
 * clock or the {@link StoreClock} instead.
 */
public interface WallClock {
    /** The current instant. */
    Instant now();
}

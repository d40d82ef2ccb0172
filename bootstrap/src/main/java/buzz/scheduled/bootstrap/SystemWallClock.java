package buzz.scheduled.bootstrap;

import buzz.scheduled.application.port.out.WallClock;
import java.time.Instant;

/**
 * The production {@link WallClock}: the operating system's clock. Bootstrap is the only production code allowed to
 * read it (an ArchUnit rule); delivery decisions use the database clock instead (docs/delivery.md "Time").
 */
public final class SystemWallClock implements WallClock {
    @Override
    public Instant now() {
        return Instant.now();
    }
}

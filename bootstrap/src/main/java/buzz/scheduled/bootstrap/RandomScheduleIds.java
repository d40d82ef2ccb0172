package buzz.scheduled.bootstrap;

import buzz.scheduled.application.port.out.ScheduleIdSource;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.UUID;

/** The production {@link ScheduleIdSource}: random (version 4) UUIDs from a cryptographically strong source. */
public final class RandomScheduleIds implements ScheduleIdSource {
    @Override
    public ScheduleId next() {
        return new ScheduleId(UUID.randomUUID());
    }
}

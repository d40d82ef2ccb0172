package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.schedule.ScheduleId;

/** Chooses identities for newly admitted scheduled messages. */
public interface ScheduleIdSource {
    /** A fresh, never used id. */
    ScheduleId next();
}

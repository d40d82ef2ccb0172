package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.schedule.ScheduleId;

/**
 * Keeps the relay's (or the sidecar's) words on a failed or retried attempt with the message, for the operator's
 * view. Metadata only: never event content.
 */
public interface DeliveryNotes {

    /** Longest note kept, in characters; longer ones are cut. */
    int MAX_LENGTH = 500;

    /**
     * Records {@code detail} as the last error of {@code id} if it is still at {@code revision} (a newer revision
     * has its own history).
     */
    void note(ScheduleId id, int revision, String detail);
}

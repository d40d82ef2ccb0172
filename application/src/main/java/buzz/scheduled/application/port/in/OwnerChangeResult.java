package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;

/** The outcome of an owner's edit, cancel or send now. */
public sealed interface OwnerChangeResult {
    /** Done; {@code message} is the message now. */
    record Done(ScheduledMessage message) implements OwnerChangeResult {
    }

    /** No such message for this owner (another owner's message answers the same). */
    record NotFound() implements OwnerChangeResult {
    }

    /** {@code If-Match} names a revision that is not the current one. */
    record RevisionConflict(Revision current) implements OwnerChangeResult {
    }

    /** The message's state does not allow it (dispatching, not_pending, already_sent, resign_required). */
    record StateConflict(OwnerRefusal refusal, String message) implements OwnerChangeResult {
    }

    /** The new event failed admission (the admission order of docs/openapi.yaml). */
    record Refused(Refusal refusal) implements OwnerChangeResult {
    }

    /**
     * The owner wrote more often than the per-owner rate allows; nothing was read or changed.
     *
     * @param retryAfter how long until the owner's next write is allowed (positive)
     * @param message    a sentence saying so and when to retry
     */
    record RateLimited(Duration retryAfter, String message) implements OwnerChangeResult {
    }

    /** A dependency could not answer; try again later. */
    record Unavailable(String message) implements OwnerChangeResult {
    }
}

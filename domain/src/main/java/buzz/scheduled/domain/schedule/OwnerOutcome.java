package buzz.scheduled.domain.schedule;

/** What an owner operation (edit, cancel, send now) or an operator's requeue of a scheduled message comes to. */
public sealed interface OwnerOutcome {
    /** The message changed into {@code message}. */
    record Changed(ScheduledMessage message) implements OwnerOutcome {
    }

    /** Nothing to change (cancelling a cancelled message); {@code message} is answered as it is. */
    record Unchanged(ScheduledMessage message) implements OwnerOutcome {
    }

    /** The {@code If-Match} revision is not the current one. */
    record RevisionConflict(Revision current) implements OwnerOutcome {
    }

    /** The state does not allow the operation. */
    record Refused(OwnerRefusal refusal) implements OwnerOutcome {
    }
}

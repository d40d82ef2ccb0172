package buzz.scheduled.domain.schedule;

/** What a delivery transition (claim, start sending, publish, retry, fail, release, reap) comes to. */
public sealed interface DeliveryOutcome {
    /** The transition happened; {@code message} is the next value. */
    record Moved(ScheduledMessage message) implements DeliveryOutcome {
    }

    /** The caller no longer holds the message (or it is not in a state that allows this): change nothing. */
    record Fenced(String why) implements DeliveryOutcome {
    }
}

package buzz.scheduled.adapters.relay;

import java.time.Duration;

/**
 * How a {@link LookUp} ended, as the relay (or the lack of it) put it; {@link LookUpEnd} says what that means for the
 * events it did not send.
 */
sealed interface LookUpOutcome {

    /** The relay sent {@code EOSE}: it sent every event it has (and serves to this connection). */
    record EndOfStoredEvents() implements LookUpOutcome {
    }

    /**
     * The relay ended the subscription with {@code CLOSED}.
     *
     * @param reason the relay's words
     */
    record Closed(String reason) implements LookUpOutcome {
    }

    /**
     * The relay did not end it in time.
     *
     * @param after how long it was given
     */
    record TimedOut(Duration after) implements LookUpOutcome {
    }

    /** The connection ended before the relay did: the question is asked again on the next one. */
    record ConnectionLost() implements LookUpOutcome {
    }
}

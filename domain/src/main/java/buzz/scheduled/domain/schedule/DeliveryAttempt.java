package buzz.scheduled.domain.schedule;

import java.time.Instant;
import java.util.Optional;

/**
 * One delivery attempt of a scheduled message, as its owner and operators see it (docs/openapi.yaml, schema
 * {@code Attempt}): which claim it was, the revision sent, when its outcome was recorded (store clock), the outcome
 * and the relay's (or the sidecar's) words, escaped and cut as the log shows them.
 *
 * @param number       the claim's ordinal among the message's claims, from 1
 * @param revision     the revision that attempt was for
 * @param at           when the outcome was recorded
 * @param outcome      what it came to
 * @param relayMessage the relay's words ({@code OK} message, {@code CLOSED} reason) or the sidecar's, when there were any
 */
public record DeliveryAttempt(int number, Revision revision, Instant at, AttemptOutcome outcome,
                              Optional<String> relayMessage) {
    public DeliveryAttempt {
        if (number < 1) {
            throw new IllegalArgumentException("an attempt's number starts at 1, got " + number);
        }
        if (revision == null || at == null || outcome == null || relayMessage == null) {
            throw new IllegalArgumentException("a delivery attempt has a missing field");
        }
    }
}

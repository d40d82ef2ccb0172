package buzz.scheduled.domain.notice;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Instant;
import java.util.Optional;

/**
 * How one of an owner's messages ended, as a notice tells it: which message, when it was due, and what happened.
 *
 * @param owner      whose message it is (the notice's only recipient)
 * @param id         the message's id
 * @param channel    its channel ({@code h} tag)
 * @param eventId    the signed event of its last revision
 * @param dueAt      when it was due (the event's {@code created_at})
 * @param finishedAt when it ended
 * @param result     published, or failed and why
 */
public record MessageOutcome(PublicKey owner, ScheduleId id, Channel channel, EventId eventId, Instant dueAt,
                             Instant finishedAt, Result result) {
    public MessageOutcome {
        if (owner == null || id == null || channel == null || eventId == null || dueAt == null || finishedAt == null
                || result == null) {
            throw new IllegalArgumentException("a message outcome needs owner, id, channel, event id, due and end"
                    + " times and a result");
        }
    }

    /** What happened to the message. */
    public sealed interface Result {
        /** The relay took it. */
        record Published() implements Result {
        }

        /**
         * It failed.
         *
         * @param reason     the API's reason
         * @param relayWords what the relay (or the access policy) said on the last attempt, already escaped and cut
         *                   as operators see it, if anything
         */
        record Failed(FailureReason reason, Optional<String> relayWords) implements Result {
            public Failed {
                if (reason == null || relayWords == null) {
                    throw new IllegalArgumentException("a failure needs a reason and a words option");
                }
            }
        }
    }
}

package buzz.scheduled.domain.schedule;

import java.time.Duration;
import java.time.Instant;

/**
 * What must still hold, after a message was claimed into {@code sending}, before its event may leave for the relay
 * (docs/delivery.md, "The hot path"): it is due by the database clock, not later than the lateness limit, and its
 * channel has no deletion tombstone. The claiming statement reads the facts under the row lock it holds; this
 * decides on them. The access policy's answer is the caller's to add (it is not a domain fact).
 */
public final class PreSendCheck {
    private PreSendCheck() {
    }

    /**
     * The verdict for one claimed message.
     *
     * @param dueAt          its due time
     * @param channelDeleted whether its channel has a deletion tombstone
     * @param maxLateness    the lateness limit ({@code BUZZ_MAX_LATENESS_SECONDS})
     * @param now            the database clock when it was claimed
     * @throws IllegalStateException when the message is not due at {@code now} (a claim must never return it)
     */
    public static Verdict verdict(Instant dueAt, boolean channelDeleted, Duration maxLateness, Instant now) {
        if (now.isBefore(dueAt)) {
            throw new IllegalStateException("claimed before its due time " + dueAt + " (database clock " + now + ")");
        }
        if (channelDeleted) {
            return new Verdict.Fail(FailureReason.CHANNEL_DELETED);
        }
        if (Lateness.expired(dueAt, maxLateness, now)) {
            return new Verdict.Fail(FailureReason.EXPIRED);
        }
        return new Verdict.Send();
    }

    /** Send it, or end it {@code failed} for {@code reason} without sending. */
    public sealed interface Verdict {
        /** Every condition holds: the event may be published. */
        record Send() implements Verdict {
        }

        /** A condition failed: record {@code failed} with this reason and send nothing. */
        record Fail(FailureReason reason) implements Verdict {
            public Fail {
                if (reason == null) {
                    throw new IllegalArgumentException("a failed pre-send check needs a reason");
                }
            }
        }
    }
}

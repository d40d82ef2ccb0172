package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The NIP-90 kind-5905 requests the front door handled (docs/nostr.md, "The kind-5905 front door"), keyed by request
 * id: a request seen again is never handled twice, a deletion finds the message its request made, and each admitted
 * message is followed to its end for the final answer.
 */
public interface JobRequests {

    /** What became of a request. */
    enum Status {
        /** It made (or found, as a retry) a message. */
        ADMITTED,
        /** Admission refused it; the requester was told why. */
        REFUSED,
        /** Its author deleted it (NIP-09) before it was handled: it is never admitted. */
        DELETED
    }

    /**
     * A handled request.
     *
     * @param requestId the request event's id
     * @param requester its author
     * @param encrypted whether it was encrypted (answers to it are then encrypted too)
     * @param status    what became of it
     * @param message   the message it made, exactly when {@link Status#ADMITTED}
     */
    record Handled(EventId requestId, PublicKey requester, boolean encrypted, Status status,
                   Optional<ScheduleId> message) {
        public Handled {
            if (requestId == null || requester == null || status == null || message == null
                    || (status == Status.ADMITTED) != message.isPresent()) {
                throw new IllegalArgumentException("a handled request needs id, requester, status, and a message"
                        + " exactly when admitted");
            }
        }
    }

    /** The request {@code requestId}, if it was handled (or deleted first). */
    Optional<Handled> find(EventId requestId);

    /**
     * Records {@code handled} unless the request is already recorded (by another node, or a deletion that came first).
     *
     * @return the record now stored: {@code handled}, or the one that was there
     */
    Handled record(Handled handled);

    /**
     * Takes up to {@code max} admitted requests whose message has ended and whose final answer was not given, and
     * keeps other nodes off them for {@code lease}.
     */
    List<Finished> takeFinished(int max, Duration lease);

    /** The final answer to {@code requestId} was given (or none is due): it is not taken again. */
    void answered(EventId requestId);

    /**
     * An admitted request whose message ended.
     *
     * @param request        the request
     * @param published      the published event's id, when it was published
     * @param failure        why it failed, when it failed
     * @param relayWords     the last attempt's words (escaped and cut), when there are any
     * @param cancelled      whether it was cancelled (nothing more is answered)
     */
    record Finished(Handled request, Optional<EventId> published, Optional<FailureReason> failure,
                    Optional<String> relayWords, boolean cancelled) {
    }
}

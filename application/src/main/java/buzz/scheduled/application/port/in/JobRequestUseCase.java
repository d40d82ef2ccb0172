package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.List;

/**
 * The NIP-90 kind-5905 front door (docs/nostr.md): a request's event is admitted by exactly the HTTP create's use case
 * ({@link ScheduleMessageUseCase}), the requester standing for the NIP-98-authenticated owner, and answered with
 * kind-7000 feedback; its author's NIP-09 deletion cancels the message as the API's cancel does.
 */
public interface JobRequestUseCase {

    /**
     * Handles a request whose event id and signature were checked. A request handled before (on any node) is not
     * handled again.
     */
    JobOutcome handle(JobRequestCommand command);

    /**
     * Carries out {@code author}'s deletion of {@code deleted} events: each that is a request of theirs has its
     * message cancelled (a request not seen yet is never admitted).
     */
    DeletionOutcome delete(PublicKey author, List<EventId> deleted);

    /**
     * A kind-5905 request.
     *
     * @param requestId the request event's id
     * @param requester its author (checked signature)
     * @param encrypted whether its job tags came encrypted (NIP-44 or NIP-04)
     * @param input     its job tags (decrypted when they came encrypted), or why they could not be read
     */
    record JobRequestCommand(EventId requestId, PublicKey requester, boolean encrypted, Input input) {
        public JobRequestCommand {
            if (requestId == null || requester == null || input == null) {
                throw new IllegalArgumentException("a job request needs an id, a requester and its input");
            }
        }
    }

    /** A request's job tags. */
    sealed interface Input {
        /** The tags ({@code i}, {@code param}, {@code relays}, …), each a list of strings. */
        record Tags(List<List<String>> tags) implements Input {
            public Tags {
                tags = List.copyOf(tags);
            }
        }

        /** The encrypted content could not be read; {@code why} says so. */
        record Unreadable(String why) implements Input {
        }
    }

    /** What became of a request. */
    sealed interface JobOutcome {
        /** Admitted: a new message, or (a retry of the same event) the one already made. */
        record Admitted(ScheduleId message, boolean replayed) implements JobOutcome {
        }

        /** Refused with the HTTP API's code and words; nothing stored but the refusal. */
        record Refused(String code, String message) implements JobOutcome {
        }

        /** Seen before (or deleted by its author first): nothing done, nothing answered. */
        record AlreadyHandled() implements JobOutcome {
        }
    }

    /**
     * What a deletion did.
     *
     * @param cancelled messages cancelled (or already cancelled)
     * @param refused   requests whose message could no longer be cancelled (being sent, already published)
     * @param early     requests not seen yet, now never to be admitted
     * @param retryAfter when a cancel could not be made now (the owner's write rate is used up, or the store did not
     *                  answer): carry the whole deletion out again after this long (what was done stays done)
     */
    record DeletionOutcome(int cancelled, int refused, int early, java.util.Optional<java.time.Duration> retryAfter) {
    }
}

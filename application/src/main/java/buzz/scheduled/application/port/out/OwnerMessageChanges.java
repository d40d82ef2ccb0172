package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.CancelMatchingUseCase.CancelMatchingResult;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.Selection;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Instant;

/**
 * The storage the owner's changes need (edit, cancel, send now): compare-and-set writes of what the domain's owner
 * operations computed. Implementations: PostgreSQL (production) and an in-memory fake (tests).
 */
public interface OwnerMessageChanges {

    /**
     * Replaces {@code expected} by {@code next} if the stored row still has {@code expected}'s state, fencing
     * token and revision (compare-and-set). A changed revision also appends {@code next}'s event to the
     * revision history in the same transaction.
     *
     * @return true when written; false when the row changed since {@code expected} was read (a lost race)
     * @throws IllegalStateException if more than one row would change
     */
    boolean replace(ScheduledMessage expected, ScheduledMessage next);

    /**
     * Stores an owner's re-admitted revision (edit, or send now with a new event) like {@link #replace}, after
     * re-checking, under the same per-channel lock that creates and channel deletions take, that the (possibly
     * new) channel has no tombstone and that its due window has room ({@code limits}; this message itself is not
     * counted). So an edit can neither move past the window limit nor slip into a channel being deleted. A new
     * revision also drops the events of revisions older than the latest {@link CreateLimits#revisionsKept()}
     * (their number, event id and time stay), so a message's stored events stay bounded however often it is edited.
     */
    ReviseResult replaceRevision(ScheduledMessage expected, ScheduledMessage next, CreateLimits limits);

    /**
     * Cancels, in one transaction, every message of {@code owner} that {@code selection} matches and that the domain's
     * table lets an owner cancel ({@code Transition.CANCEL} moves it: {@code scheduled}, {@code claimed}), exactly as
     * {@link #replace} writes one owner cancel: state {@code cancelled}, the claim revoked, the end time set, its
     * event and every revision's event deleted. A row claimed concurrently is either cancelled before the claim sees
     * it or left to the claim; never both.
     *
     * @return how many it cancelled, and how many matching ones are being sent ({@code sending}) and were left alone
     */
    CancelMatchingResult.Cancelled cancelMatching(PublicKey owner, Selection selection);

    /** The outcome of {@link #replaceRevision}. */
    sealed interface ReviseResult {
        /** Written. */
        record Replaced() implements ReviseResult {
        }

        /** The row changed since {@code expected} was read (a lost race); nothing written. */
        record Lost() implements ReviseResult {
        }

        /** The channel has a deletion tombstone; nothing written. */
        record ChannelDeleted() implements ReviseResult {
        }

        /** The owner, or the whole channel ({@code scope}), already has {@code limit} due in that window. */
        record ChannelWindowFull(int limit, Instant windowStart, MessageAdmission.WindowScope scope)
                implements ReviseResult {
        }
    }
}

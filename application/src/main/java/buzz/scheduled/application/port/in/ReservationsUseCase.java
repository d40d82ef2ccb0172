package buzz.scheduled.application.port.in;

import java.time.Instant;
import java.util.Optional;

/**
 * The late-delivery reservation (docs/scheduled-messages.md §5): {@code held_before} is the oldest due time of a
 * non-terminal message that is already due, so a relay serving reads from replicas knows which time range an overdue
 * scheduled event may still land in.
 */
public interface ReservationsUseCase {

    /** The figures now, on the database clock. */
    Reservations reservations();

    /**
     * Late-delivery reservation figures (docs/scheduled-messages.md, "Late delivery and reservations").
     *
     * @param heldBefore for the non-terminal messages already due (due time ≤ now), the oldest instant one of
     *                   them may land at: the earlier of its due time and its event's {@code created_at} (they
     *                   differ only after a send-now with a newly signed event). Empty when nothing is overdue. A
     *                   relay reading from replicas must not treat time from this instant on as complete
     * @param overdue    how many non-terminal messages are already due
     * @param nextDue    the earliest due time after now of a non-terminal message, if any
     * @param now        the store's clock when the figures were taken
     */
    record Reservations(Optional<Instant> heldBefore, long overdue, Optional<Instant> nextDue, Instant now) {
        public Reservations {
            if (heldBefore == null || nextDue == null || now == null) {
                throw new IllegalArgumentException("reservations need heldBefore, nextDue (present or empty) and now");
            }
            if (overdue < 0) {
                throw new IllegalArgumentException("overdue must not be negative, got " + overdue);
            }
            if (heldBefore.isPresent() != (overdue > 0)) {
                throw new IllegalArgumentException("heldBefore is present exactly when something is overdue, got "
                        + heldBefore + " with " + overdue + " overdue");
            }
        }
    }
}

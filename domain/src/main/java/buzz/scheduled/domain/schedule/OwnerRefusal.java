package buzz.scheduled.domain.schedule;

/**
 * Why the owner (or an operator's requeue) cannot change a message in its current state (docs/openapi.yaml, response
 * {@code StateConflict}); the wire name is the error code.
 */
public enum OwnerRefusal {
    /** It is in {@code sending}: one relay round trip during which nobody can change it. */
    DISPATCHING("dispatching"),
    /** It is in a terminal state other than published. */
    NOT_PENDING("not_pending"),
    /** It was published. */
    ALREADY_SENT("already_sent"),
    /**
     * Send now without a new event, but the stored {@code created_at} is outside the relay's window; or a requeue of a
     * message whose {@code created_at} is older than the lateness limit. Only the owner can sign the event again.
     */
    RESIGN_REQUIRED("resign_required"),
    /** A requeue of a message that did not fail (pending or cancelled). */
    NOT_FAILED("not_failed"),
    /** A requeue of a failed message whose event is no longer stored (its channel was deleted, its owner removed). */
    EVENT_PURGED("event_purged");

    private final String wireName;

    OwnerRefusal(String wireName) {
        this.wireName = wireName;
    }

    /** The API error code. */
    public String wireName() {
        return wireName;
    }
}

package buzz.scheduled.domain.schedule;

/**
 * Why the owner cannot change a message in its current state (docs/openapi.yaml, response {@code StateConflict}); the
 * wire name is the error code.
 */
public enum OwnerRefusal {
    /** It is in {@code sending}: one relay round trip during which nobody can change it. */
    DISPATCHING("dispatching"),
    /** It is in a terminal state other than published. */
    NOT_PENDING("not_pending"),
    /** It was published. */
    ALREADY_SENT("already_sent"),
    /** Send now without a new event, but the stored {@code created_at} is outside the relay's window. */
    RESIGN_REQUIRED("resign_required");

    private final String wireName;

    OwnerRefusal(String wireName) {
        this.wireName = wireName;
    }

    /** The API error code. */
    public String wireName() {
        return wireName;
    }
}

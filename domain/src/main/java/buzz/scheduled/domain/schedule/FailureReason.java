package buzz.scheduled.domain.schedule;

import java.util.Arrays;

/**
 * Why a scheduled message ended {@code failed} (docs/openapi.yaml, schema {@code Item}); the wire name is what the API
 * shows.
 */
public enum FailureReason {
    /** The access policy denied the owner at delivery. */
    ACCESS_DENIED("access_denied"),
    /** The relay answered {@code invalid:}, {@code pow:}, {@code blocked:} or {@code restricted:}. */
    RELAY_REJECTED("relay_rejected"),
    /** Not delivered within the lateness limit. */
    EXPIRED("expired"),
    /** The channel was deleted before delivery. */
    CHANNEL_DELETED("channel_deleted"),
    /** The owner was removed from the channel before delivery. */
    MEMBER_REMOVED("member_removed");

    private final String wireName;

    FailureReason(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in the API and the database. */
    public String wireName() {
        return wireName;
    }

    /**
     * Whether failing for this reason deletes the stored event at once: a deleted channel or a removed member must
     * leave nothing of it behind (docs/scheduled-messages.md §6). For the other reasons the event stays until
     * retention, so that an operator can requeue the message once the cause is fixed.
     */
    public boolean purgesEvent() {
        return switch (this) {
            case CHANNEL_DELETED, MEMBER_REMOVED -> true;
            case ACCESS_DENIED, RELAY_REJECTED, EXPIRED -> false;
        };
    }

    /**
     * Reads a wire name.
     *
     * @throws IllegalArgumentException for an unknown name
     */
    public static FailureReason fromWireName(String name) {
        return Arrays.stream(values())
                .filter(reason -> reason.wireName.equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown failure reason: " + name));
    }
}

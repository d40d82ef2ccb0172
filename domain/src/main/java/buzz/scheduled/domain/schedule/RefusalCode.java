package buzz.scheduled.domain.schedule;

/** Why an event is not admitted (the admission order of docs/openapi.yaml); the wire name is the API error code. */
public enum RefusalCode {
    INVALID_EVENT("invalid_event"),
    PUBKEY_MISMATCH("pubkey_mismatch"),
    KIND_NOT_ALLOWED("kind_not_allowed"),
    MISSING_CHANNEL("missing_channel"),
    TOO_LARGE("too_large"),
    PROTECTED_EVENT("protected_event"),
    EXPIRES_BEFORE_DUE("expires_before_due"),
    TIME_IN_PAST("time_in_past"),
    TIME_TOO_FAR("time_too_far"),
    POW_TOO_LOW("pow_too_low"),
    CHANNEL_NOT_FOUND("channel_not_found"),
    IS_ARCHIVED("is_archived"),
    NOT_IN_CHANNEL("not_in_channel"),
    RESTRICTED("restricted"),
    TOO_MANY_PENDING("too_many_pending"),
    RESTRICTED_TOO_MANY("restricted_too_many");

    private final String wireName;

    RefusalCode(String wireName) {
        this.wireName = wireName;
    }

    /** The API error code. */
    public String wireName() {
        return wireName;
    }
}

package buzz.scheduled.domain.notice;

import java.util.Arrays;
import java.util.Optional;

/**
 * What an owner wants to be told by NIP-17 direct message about their messages' outcomes (docs/nostr.md, "Notices");
 * the wire name is what {@code GET/PUT /v1/owner/settings} and the CLI show.
 */
public enum NoticeChoice {
    /** Nothing. */
    NONE("none"),
    /** Every message that fails, whatever the reason: the choice of an owner who never chose. */
    FAILURES("failures"),
    /** Every failure and every publication. */
    ALL("all");

    /** What an owner who never chose gets. */
    public static final NoticeChoice DEFAULT = FAILURES;

    private final String wireName;

    NoticeChoice(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in the API, the CLI and the database. */
    public String wireName() {
        return wireName;
    }

    /** The choice named {@code name}, or empty when no choice has that name. */
    public static Optional<NoticeChoice> fromWireName(String name) {
        return Arrays.stream(values()).filter(choice -> choice.wireName.equals(name)).findFirst();
    }

    /** Whether a message that ended this way is told under this choice. */
    public boolean tells(MessageOutcome.Result result) {
        return switch (this) {
            case NONE -> false;
            case FAILURES -> result instanceof MessageOutcome.Result.Failed;
            case ALL -> true;
        };
    }
}

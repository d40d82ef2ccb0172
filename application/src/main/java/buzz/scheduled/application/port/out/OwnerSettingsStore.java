package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.notice.NoticeChoice;
import buzz.scheduled.domain.nostr.PublicKey;
import java.util.Optional;

/** Where each owner's settings are kept (docs/nostr.md, "Notices"): so far, which notices they want. */
public interface OwnerSettingsStore {

    /** {@code owner}'s notice choice, or empty when they never chose. */
    Optional<NoticeChoice> notices(PublicKey owner);

    /**
     * Stores {@code owner}'s choice; from its commit on, outcomes of the owner's messages are queued for notices by it
     * (for {@link NoticeChoice#ALL}, publications of messages already pending included).
     */
    void saveNotices(PublicKey owner, NoticeChoice choice);
}

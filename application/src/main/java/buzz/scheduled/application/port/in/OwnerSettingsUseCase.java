package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.notice.NoticeChoice;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;

/** An owner's settings (docs/openapi.yaml {@code getOwnerSettings}, {@code putOwnerSettings}): their notice choice. */
public interface OwnerSettingsUseCase {

    /** {@code owner}'s settings; {@link NoticeChoice#DEFAULT} when they never chose. */
    OwnerSettings settings(PublicKey owner);

    /** Stores {@code owner}'s notice choice (an owner write: it counts against the per-owner write rate). */
    SettingsResult changeNotices(PublicKey owner, NoticeChoice choice);

    /**
     * An owner's settings.
     *
     * @param notices        what they want to be told
     * @param noticesEnabled whether the operator switched notices on ({@code BUZZ_NOTICES}); off, nothing is sent
     *                       whatever the choice
     */
    record OwnerSettings(NoticeChoice notices, boolean noticesEnabled) {
        public OwnerSettings {
            if (notices == null) {
                throw new IllegalArgumentException("settings need a notice choice");
            }
        }
    }

    /** The outcome of a change. */
    sealed interface SettingsResult {
        /** Stored; {@code settings} are the owner's settings now. */
        record Changed(OwnerSettings settings) implements SettingsResult {
        }

        /**
         * The owner wrote more often than the per-owner rate allows; nothing was stored.
         *
         * @param retryAfter how long until the owner's next write is allowed (positive)
         */
        record RateLimited(Duration retryAfter, String message) implements SettingsResult {
        }
    }
}

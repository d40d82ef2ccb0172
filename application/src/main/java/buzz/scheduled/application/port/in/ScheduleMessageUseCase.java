package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.Optional;

/** Admits a signed event for later delivery (docs/openapi.yaml {@code createScheduledMessage}). */
public interface ScheduleMessageUseCase {

    /** Applies every admission rule in the admission order of docs/openapi.yaml; stores nothing on any refusal. */
    ScheduleResult schedule(ScheduleMessageCommand command);

    /**
     * @param owner          the authenticated pubkey (NIP-98)
     * @param event          the strictly parsed event (its signature is checked here)
     * @param idempotencyKey the {@code Idempotency-Key} header; the event id when absent
     */
    record ScheduleMessageCommand(PublicKey owner, NostrEvent event, Optional<String> idempotencyKey) {
        /** Longest {@code Idempotency-Key} accepted, in characters. */
        public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 255;

        public ScheduleMessageCommand {
            if (owner == null || event == null || idempotencyKey == null) {
                throw new IllegalArgumentException("schedule command needs an owner, an event and a key option");
            }
        }
    }

    /** The outcome of an admission. */
    sealed interface ScheduleResult {
        /** Stored as a new message. */
        record Created(ScheduledMessage message) implements ScheduleResult {
        }

        /** A retry of an earlier identical create: that message, unchanged. */
        record Replayed(ScheduledMessage message) implements ScheduleResult {
        }

        /** An admission rule (admission order of docs/openapi.yaml) refused it. */
        record Refused(Refusal refusal) implements ScheduleResult {
        }

        /** The idempotency key was used for a different event. */
        record IdempotencyConflict(String message) implements ScheduleResult {
        }

        /**
         * The owner wrote more often than the per-owner rate allows; nothing was checked or stored.
         *
         * @param retryAfter how long until the owner's next write is allowed (positive)
         * @param message    a sentence saying so and when to retry
         */
        record RateLimited(Duration retryAfter, String message) implements ScheduleResult {
        }

        /** A dependency (access policy) could not answer; try again later. */
        record Unavailable(String message) implements ScheduleResult {
        }
    }
}

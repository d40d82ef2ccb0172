package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.ScheduleMessageUseCase;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;

/**
 * The storage admission needs (schedule; the re-admission of an edit or a send-now with a new event): store a newly
 * admitted message atomically with the limits, and tell whether a channel was deleted. Implementations: PostgreSQL
 * (production) and an in-memory fake (tests).
 */
public interface MessageAdmission {

    /**
     * Stores a newly admitted message under an idempotency key, atomically with the limit checks: a deleted
     * channel, the owner's pending count and the channel's due-window count. Concurrent identical creates
     * make exactly one row.
     */
    CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits);

    /** Whether the channel has a deletion tombstone. */
    boolean channelDeleted(Channel channel);

    /** Scopes an idempotency key to its owner. */
    record IdempotencyKey(PublicKey owner, String key) {
        /** Longest key accepted. */
        public static final int MAX_LENGTH = ScheduleMessageUseCase.ScheduleMessageCommand.MAX_IDEMPOTENCY_KEY_LENGTH;

        public IdempotencyKey {
            if (owner == null || key == null || key.isEmpty() || key.length() > MAX_LENGTH) {
                throw new IllegalArgumentException("idempotency key must be 1 to " + MAX_LENGTH + " characters");
            }
        }
    }

    /**
     * Limits checked atomically with a create.
     *
     * @param maxPendingPerOwner owner's non-terminal messages allowed (default 100)
     * @param maxPerChannelWindow messages a channel may have due in one window (30)
     * @param channelWindow window length; windows are aligned to the epoch (5 minutes)
     */
    record CreateLimits(int maxPendingPerOwner, int maxPerChannelWindow, Duration channelWindow) {
        public CreateLimits {
            if (maxPendingPerOwner < 1 || maxPerChannelWindow < 1 || channelWindow == null
                    || channelWindow.toSeconds() < 1) {
                throw new IllegalArgumentException("create limits must be positive");
            }
        }

        /** Start of the window holding {@code dueAt}. */
        public Instant windowStart(Instant dueAt) {
            long seconds = channelWindow.toSeconds();
            return Instant.ofEpochSecond(Math.floorDiv(dueAt.getEpochSecond(), seconds) * seconds);
        }
    }

    /** The outcome of {@link #create}. */
    sealed interface CreateResult {
        /** Stored. */
        record Created(ScheduledMessage message) implements CreateResult {
        }

        /** The same key with the same event was stored before: that message. */
        record Replayed(ScheduledMessage message) implements CreateResult {
        }

        /** The key was used for a different event. */
        record IdempotencyConflict(ScheduleId existing, EventId existingEventId) implements CreateResult {
        }

        /** The channel has a deletion tombstone. */
        record ChannelDeleted() implements CreateResult {
        }

        /** The owner already has the maximum pending. */
        record TooManyPending(int limit) implements CreateResult {
        }

        /** The channel already has the maximum due in the window. */
        record ChannelWindowFull(int limit, Instant windowStart) implements CreateResult {
        }
    }
}

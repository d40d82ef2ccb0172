package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.ScheduleMessageUseCase;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The storage admission needs (schedule; the re-admission of an edit or a send-now with a new event): store a newly
 * admitted message atomically with the limits, and tell whether a channel was deleted. Implementations: PostgreSQL
 * (production) and an in-memory fake (tests).
 */
public interface MessageAdmission {

    /**
     * Stores a newly admitted message under an idempotency key, atomically with the limit checks: a deleted
     * channel, the owner's pending count, and the due-window counts (the owner's in that channel, then the whole
     * channel's). Concurrent identical creates
     * make exactly one row.
     */
    CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits);

    /**
     * Stores the admitted messages of one owner's batch in one transaction, each checked exactly as {@link #create}
     * checks one (by the same code), in order, as if they were created one after the other: an entry's idempotency
     * key is looked up among the stored keys and those of the earlier entries, and its limits count the earlier
     * entries stored. An entry refused stores nothing; the others are stored together or, if the store fails, none
     * is.
     *
     * @param entries one owner's messages with their keys, at most {@code ScheduleBatchUseCase.MAX_EVENTS}
     * @return one result per entry, in the same order
     */
    List<CreateResult> createBatch(List<BatchEntry> entries, CreateLimits limits);

    /** Whether the channel has a deletion tombstone. */
    boolean channelDeleted(Channel channel);

    /** Which of {@code channels} have a deletion tombstone (one look-up for a batch; by default one per channel). */
    default Set<Channel> deletedChannels(Collection<Channel> channels) {
        Set<Channel> deleted = new HashSet<>();
        for (Channel channel : channels) {
            if (channelDeleted(channel)) {
                deleted.add(channel);
            }
        }
        return deleted;
    }

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

    /** One message of a batch and the key it is stored under. */
    record BatchEntry(ScheduledMessage message, IdempotencyKey key) {
        public BatchEntry {
            if (message == null || key == null) {
                throw new IllegalArgumentException("a batch entry needs a message and a key");
            }
            if (!key.owner().equals(message.owner())) {
                throw new IllegalArgumentException("idempotency key of " + key.owner() + " for a message of "
                        + message.owner());
            }
        }
    }

    /**
     * Limits checked atomically with a create, and with an edit's re-admission.
     *
     * @param maxPendingPerOwner         owner's non-terminal messages allowed (default 100)
     * @param maxPerOwnerInChannelWindow messages one owner may have due in one channel in one window (default 30)
     * @param maxPerChannelWindow        messages all owners together may have due in one channel in one window, the
     *                                   backstop (default 300)
     * @param channelWindow              window length; windows are aligned to the epoch (5 minutes)
     * @param revisionsKept              how many of a message's latest revisions keep their signed event, the
     *                                   current one included (default 1: a superseded revision's event is dropped
     *                                   when the edit commits; its number, event id and time stay)
     */
    record CreateLimits(int maxPendingPerOwner, int maxPerOwnerInChannelWindow, int maxPerChannelWindow,
                        Duration channelWindow, int revisionsKept) {
        /** The default per-owner window limit: 30 messages due in one channel in one window. */
        public static final int DEFAULT_PER_OWNER_IN_CHANNEL_WINDOW = 30;
        /** The default channel-wide window limit: 300 messages due in one channel in one window. */
        public static final int DEFAULT_PER_CHANNEL_WINDOW = 300;
        /** The default window: 5 minutes. */
        public static final Duration DEFAULT_CHANNEL_WINDOW = Duration.ofMinutes(5);
        /** By default only the current revision keeps its event (docs/scheduled-messages.md §4). */
        public static final int DEFAULT_REVISIONS_KEPT = 1;

        public CreateLimits {
            if (maxPendingPerOwner < 1 || maxPerOwnerInChannelWindow < 1 || maxPerChannelWindow < 1
                    || channelWindow == null || channelWindow.toSeconds() < 1 || revisionsKept < 1) {
                throw new IllegalArgumentException("create limits must be positive");
            }
        }

        /**
         * Limits where one count, {@code maxPerWindow}, applies both per owner and to the whole channel, keeping
         * only the current revision's event.
         */
        public CreateLimits(int maxPendingPerOwner, int maxPerWindow, Duration channelWindow) {
            this(maxPendingPerOwner, maxPerWindow, maxPerWindow, channelWindow, DEFAULT_REVISIONS_KEPT);
        }

        /** Start of the window holding {@code dueAt}. */
        public Instant windowStart(Instant dueAt) {
            long seconds = channelWindow.toSeconds();
            return Instant.ofEpochSecond(Math.floorDiv(dueAt.getEpochSecond(), seconds) * seconds);
        }

        /**
         * Which window limit {@code ownerCount} (the owner's messages due in the channel's window) and
         * {@code channelCount} (everyone's) leave no room under, owner first; empty when there is room for one more.
         */
        public Optional<WindowScope> fullWindow(long ownerCount, long channelCount) {
            if (ownerCount >= maxPerOwnerInChannelWindow) {
                return Optional.of(WindowScope.OWNER);
            }
            return channelCount >= maxPerChannelWindow ? Optional.of(WindowScope.CHANNEL)
                    : Optional.empty();
        }

        /** The limit that applies to {@code scope}. */
        public int limit(WindowScope scope) {
            return scope == WindowScope.OWNER ? maxPerOwnerInChannelWindow : maxPerChannelWindow;
        }
    }

    /** Which channel-window limit refused: the owner's own count in the channel, or the whole channel's. */
    enum WindowScope {
        /** The owner already has {@link CreateLimits#maxPerOwnerInChannelWindow} due in that window. */
        OWNER,
        /** All owners together have {@link CreateLimits#maxPerChannelWindow} due in that window. */
        CHANNEL
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

        /** The owner, or the whole channel ({@code scope}), already has {@code limit} due in the window. */
        record ChannelWindowFull(int limit, Instant windowStart, WindowScope scope) implements CreateResult {
        }
    }
}

package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Durable storage of scheduled messages for the owner's and the operator's use cases, aggregate-shaped. Writes are
 * compare-and-set. The dispatcher's storage is the narrower {@link DeliveryStore}. Implementations: PostgreSQL
 * (production) and an in-memory fake (tests).
 */
public interface ScheduleStore {

    /** The store's clock (PostgreSQL {@code now()}); the only clock delivery decisions may use. */
    Instant now();

    /**
     * Stores a newly admitted message under an idempotency key, atomically with the limit checks: a deleted
     * channel, the owner's pending count and the channel's due-window count. Concurrent identical creates
     * make exactly one row.
     */
    CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits);

    /** The message with {@code id}, whoever owns it (callers scope by owner). */
    Optional<ScheduledMessage> find(ScheduleId id);

    /** One page of an owner's messages ordered by (due time, id). */
    Page list(ListQuery query);

    /**
     * Replaces {@code expected} by {@code next} if the stored row still has {@code expected}'s state, fencing
     * token and revision (compare-and-set). A changed revision also appends {@code next}'s event to the
     * revision history in the same transaction.
     *
     * @return true when written; false when the row changed since {@code expected} was read (a lost race)
     * @throws IllegalStateException if more than one row would change
     */
    boolean replace(ScheduledMessage expected, ScheduledMessage next);

    /**
     * Stores an owner's re-admitted revision (edit, or send now with a new event) like {@link #replace}, after
     * re-checking, under the same per-channel lock that creates and channel deletions take, that the (possibly
     * new) channel has no tombstone and that its due window has room ({@code limits}; this message itself is not
     * counted). So an edit can neither move past the window limit nor slip into a channel being deleted.
     */
    ReviseResult replaceRevision(ScheduledMessage expected, ScheduledMessage next, CreateLimits limits);

    /** Whether the channel has a deletion tombstone. */
    boolean channelDeleted(Channel channel);

    /** Scopes an idempotency key to its owner. */
    record IdempotencyKey(PublicKey owner, String key) {
        /** Longest key accepted. */
        public static final int MAX_LENGTH = 255;

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

    /** The outcome of {@link #replaceRevision}. */
    sealed interface ReviseResult {
        /** Written. */
        record Replaced() implements ReviseResult {
        }

        /** The row changed since {@code expected} was read (a lost race); nothing written. */
        record Lost() implements ReviseResult {
        }

        /** The channel has a deletion tombstone; nothing written. */
        record ChannelDeleted() implements ReviseResult {
        }

        /** The channel already has the maximum due in that window; nothing written. */
        record ChannelWindowFull(int limit, Instant windowStart) implements ReviseResult {
        }
    }

    /**
     * A list request.
     *
     * @param owner   whose messages
     * @param states  wire names of the states to include (non-empty)
     * @param channel only this channel, if present
     * @param limit   1..200
     * @param after   continue after this position
     */
    record ListQuery(PublicKey owner, Set<String> states, Optional<Channel> channel, int limit,
                     Optional<Cursor> after) {
        /** Largest page. */
        public static final int MAX_LIMIT = 200;

        public ListQuery {
            if (owner == null || states == null || states.isEmpty() || channel == null || after == null) {
                throw new IllegalArgumentException("list query needs an owner, states, channel and cursor");
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be 1.." + MAX_LIMIT + ", got " + limit);
            }
            states = Set.copyOf(states);
        }
    }

    /** A position in the (due time, id) order. */
    record Cursor(Instant dueAt, ScheduleId id) {
    }

    /** One page and where the next starts, if there is more. */
    record Page(List<ScheduledMessage> items, Optional<Cursor> next) {
        public Page {
            items = List.copyOf(items);
        }
    }
}

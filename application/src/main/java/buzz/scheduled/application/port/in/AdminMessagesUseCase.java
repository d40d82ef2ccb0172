package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Lists the metadata of any owner's messages for operators ({@code GET /v1/admin/messages}), ordered by
 * (due time, id), earliest or latest first, with a cursor; and counts the messages a query matches. The event content
 * is never read.
 */
public interface AdminMessagesUseCase {

    /** One page. */
    AdminPage list(AdminQuery query);

    /** How many messages {@code query} matches, ignoring its limit and cursor, counted up to {@link MatchCount#CAP}. */
    MatchCount count(AdminQuery query);

    /**
     * A count of matching messages.
     *
     * @param count  the number of matching messages, at most {@link #CAP}
     * @param capped whether counting stopped at {@link #CAP} (there may be more)
     */
    record MatchCount(long count, boolean capped) {
        /** Counting stops here, so that a count over a large store stays cheap. */
        public static final long CAP = 10_000;

        public MatchCount {
            if (count < 0 || count > CAP || capped && count != CAP) {
                throw new IllegalArgumentException("a match count is 0.." + CAP + ", capped only at " + CAP
                        + "; got " + count + (capped ? " capped" : ""));
            }
        }
    }

    /**
     * What to list.
     *
     * @param states  state wire names to include (at least one)
     * @param channel only this channel, when present
     * @param owner   only this owner, when present
     * @param limit       1 to {@value #MAX_LIMIT} items
     * @param after       the position after which the page starts (the previous page's {@link AdminPage#next()})
     * @param dueFrom     only messages due at or after this instant, when present
     * @param dueBefore   only messages due before this instant, when present
     * @param latestFirst whether the order is latest due time first (then the higher id first)
     */
    record AdminQuery(Set<String> states, Optional<Channel> channel, Optional<PublicKey> owner, int limit,
                      Optional<Position> after, Optional<Instant> dueFrom, Optional<Instant> dueBefore,
                      boolean latestFirst) {
        /** Largest page. */
        public static final int MAX_LIMIT = 200;

        public AdminQuery {
            if (states == null || states.isEmpty() || channel == null || owner == null || after == null
                    || dueFrom == null || dueBefore == null) {
                throw new IllegalArgumentException("an admin query needs states and its options");
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be 1.." + MAX_LIMIT + ", got " + limit);
            }
            states = Set.copyOf(states);
        }

        /** Every due time, earliest first. */
        public AdminQuery(Set<String> states, Optional<Channel> channel, Optional<PublicKey> owner, int limit,
                          Optional<Position> after) {
            this(states, channel, owner, limit, after, Optional.empty(), Optional.empty(), false);
        }

        /** Whether {@code dueAt} is inside the query's due range. */
        public boolean dueInRange(Instant dueAt) {
            return dueFrom.map(from -> !dueAt.isBefore(from)).orElse(true)
                    && dueBefore.map(dueAt::isBefore).orElse(true);
        }
    }

    /** A place in the (due time, id) order. */
    record Position(Instant dueAt, ScheduleId id) {
        public Position {
            if (dueAt == null || id == null) {
                throw new IllegalArgumentException("a position needs a due time and an id");
            }
        }
    }

    /** One page and where the next starts (empty on the last page). */
    record AdminPage(List<AdminMessage> items, Optional<Position> next) {
        public AdminPage {
            items = List.copyOf(items);
            if (next == null) {
                throw new IllegalArgumentException("next must be present or empty");
            }
        }
    }

    /**
     * A message's metadata: everything an operator needs to find and judge it, never its content.
     *
     * @param id         the scheduled message
     * @param owner      its author
     * @param channel    its channel
     * @param revision   its current revision
     * @param state      the state's wire name
     * @param reason     the failure reason's wire name, for failed messages
     * @param eventId    the current revision's event id
     * @param dueAt      its due time
     * @param attempts   claims made
     * @param createdAt  when it was admitted
     * @param updatedAt  when it last changed
     * @param finishedAt when it reached its terminal state
     * @param lastError  the relay's or the sidecar's words on the last failed or retried attempt, when recorded
     * @param purged     whether the stored event was removed (cancel, channel deletion)
     */
    record AdminMessage(ScheduleId id, PublicKey owner, Channel channel, int revision, String state,
                        Optional<String> reason, EventId eventId, Instant dueAt, int attempts, Instant createdAt,
                        Instant updatedAt, Optional<Instant> finishedAt, Optional<String> lastError,
                        boolean purged) {
        public AdminMessage {
            if (id == null || owner == null || channel == null || state == null || reason == null
                    || eventId == null || dueAt == null || createdAt == null || updatedAt == null
                    || finishedAt == null || lastError == null) {
                throw new IllegalArgumentException("an admin message has a missing field");
            }
        }
    }
}

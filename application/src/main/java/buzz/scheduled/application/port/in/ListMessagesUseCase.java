package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Lists an owner's messages by due time with an opaque cursor (docs/openapi.yaml {@code listScheduledMessages}). */
public interface ListMessagesUseCase {

    /** One page; default filters are the adapter's business (non-terminal states, limit 50). */
    Page list(ListQuery query);

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

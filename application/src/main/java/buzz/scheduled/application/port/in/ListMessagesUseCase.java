package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.SeriesId;
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
     * @param limit    1..200 items at most
     * @param after    continue after this position
     * @param maxBytes the page's byte budget: items are taken in order while the sum of their estimated sizes
     *                 (stored event JSON in UTF-8 bytes + {@link #ITEM_OVERHEAD_BYTES} each) stays within it; the
     *                 first item is always taken, however large. The page's {@code next} then continues after the
     *                 last item taken. At least 1
     * @param series   only this series, if present
     */
    record ListQuery(PublicKey owner, Set<String> states, Optional<Channel> channel, int limit,
                     Optional<Cursor> after, int maxBytes, Optional<SeriesId> series) {
        /** Largest page. */
        public static final int MAX_LIMIT = 200;
        /** The default byte budget of a page: 1 MiB ({@code BUZZ_LIST_PAGE_MAX_BYTES}). */
        public static final int DEFAULT_MAX_BYTES = 1024 * 1024;
        /** What an item's JSON adds to its event's: the id, state, times and so on, rounded up. */
        public static final int ITEM_OVERHEAD_BYTES = 512;

        /** A query with the default byte budget ({@value #DEFAULT_MAX_BYTES} bytes). */
        public ListQuery(PublicKey owner, Set<String> states, Optional<Channel> channel, int limit,
                         Optional<Cursor> after) {
            this(owner, states, channel, limit, after, DEFAULT_MAX_BYTES);
        }

        /** A query of every series (no series filter). */
        public ListQuery(PublicKey owner, Set<String> states, Optional<Channel> channel, int limit,
                         Optional<Cursor> after, int maxBytes) {
            this(owner, states, channel, limit, after, maxBytes, Optional.empty());
        }

        public ListQuery {
            if (owner == null || states == null || states.isEmpty() || channel == null || after == null
                    || series == null) {
                throw new IllegalArgumentException("list query needs an owner, states, channel, cursor and series");
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be 1.." + MAX_LIMIT + ", got " + limit);
            }
            if (maxBytes < 1) {
                throw new IllegalArgumentException("a page's byte budget must be positive, got " + maxBytes);
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

        /**
         * How many of {@code sizes} (estimated item sizes in bytes, in page order) fit {@code maxBytes}: at least one
         * when there is one, then while the running sum stays within the budget.
         */
        public static int fitting(List<Long> sizes, int maxBytes) {
            long sum = 0;
            int n = 0;
            for (long size : sizes) {
                sum += size;
                if (n > 0 && sum > maxBytes) {
                    break;
                }
                n++;
            }
            return n;
        }
    }
}

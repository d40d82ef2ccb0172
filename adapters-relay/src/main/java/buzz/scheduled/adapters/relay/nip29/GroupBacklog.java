package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The relay's stored NIP-29 backlog, read one page at a time (NIP-01 {@code limit} and {@code until}) because relays
 * cap what one filter returns without saying so in {@code EOSE}. For each filter in turn — relay-signed group state,
 * then moderation events — the first page asks for the newest {@code limit} events, each next page for those at or
 * before the oldest {@code created_at} of the previous one (inclusive: the relay may have cut that second in the
 * middle; events seen twice are recognised by id), and a page with fewer than {@code limit} events is the end of the
 * filter. A full page that brings no event not seen before cannot be paged past: at least {@code limit} events share
 * one second, and {@code until}/{@code limit} cannot tell whether there are more. The backlog is then
 * {@linkplain PageEnd#STUCK stuck}, never complete.
 *
 * <p>Also holds the moderation events seen before the backlog is complete, and counts the group state events the
 * relay's key signed. Not thread-safe: its connection serialises access.
 */
final class GroupBacklog {

    /** The filter of moderation events (9001 remove-user, 9008 delete-group), without braces. */
    static final String MODERATION_FILTER = "\"kinds\":[" + GroupDirectory.REMOVE_USER + ","
            + GroupDirectory.DELETE_GROUP + "]";

    /** What the end of a page means. */
    enum PageEnd {
        /** Ask for the next page (of this filter or the next one). */
        MORE,
        /** Every filter has been read to its end. */
        DONE,
        /** A full page of events already seen: the rest cannot be reached with {@code until}/{@code limit}. */
        STUCK
    }

    private final List<String> filters;
    private int filter;
    private int pages;
    private Long until;
    private String current;
    private int count;
    private long oldest;
    private int fresh;
    private final Set<String> seen = new HashSet<>();
    private final Set<String> signedState = new HashSet<>();
    private final Map<String, NostrEvent> heldStored = new LinkedHashMap<>();
    private final Map<String, NostrEvent> heldLive = new LinkedHashMap<>();

    /** @param relay the key whose group state is read */
    GroupBacklog(PublicKey relay) {
        this.filters = List.of(stateFilter(relay), MODERATION_FILTER);
    }

    /** The filter of group state signed by {@code relay} (39000, 39001, 39002), without braces. */
    static String stateFilter(PublicKey relay) {
        return "\"kinds\":[" + GroupDirectory.METADATA + "," + GroupDirectory.ADMINS + "," + GroupDirectory.MEMBERS
                + "],\"authors\":[\"" + relay.hex() + "\"]";
    }

    /** The {@code REQ} for the next page, which becomes the current page. */
    String nextRequest(int limit) {
        pages++;
        current = FeedSubscription.PAGE_PREFIX + pages;
        count = 0;
        fresh = 0;
        oldest = Long.MAX_VALUE;
        return "[\"REQ\",\"" + current + "\",{" + filters.get(filter) + ",\"limit\":" + limit
                + (until == null ? "" : ",\"until\":" + until) + "}]";
    }

    /** Whether {@code subscription} is the page being read. */
    boolean isCurrentPage(String subscription) {
        return subscription.equals(current);
    }

    /** The subscription id of the page being read, or null between pages. */
    String currentPage() {
        return current;
    }

    /** Whether a page is being read and nothing of it has arrived yet (as a refused page looks). */
    boolean currentPageUntouched() {
        return current != null && count == 0;
    }

    /** An event of the current page. */
    void counted(NostrEvent event) {
        count++;
        oldest = Math.min(oldest, event.createdAt());
        if (seen.add(event.id().hex())) {
            fresh++;
        }
    }

    /** An event of the current page that could not be read: it counts towards the page, nothing else. */
    void countedUnreadable() {
        count++;
    }

    /** A group state event signed by the relay's key arrived (from a page or the live subscription). */
    void signedByTheRelay(NostrEvent event) {
        signedState.add(event.id().hex());
    }

    /** Keeps a moderation event until the backlog is complete; {@code live} when it arrived after the live EOSE. */
    void hold(NostrEvent event, boolean live) {
        String id = event.id().hex();
        if (live) {
            heldStored.remove(id);
            heldLive.putIfAbsent(id, event);
        } else if (!heldLive.containsKey(id)) {
            heldStored.putIfAbsent(id, event);
        }
    }

    /** The current page's {@code EOSE}: what comes next. */
    PageEnd pageEnded(int limit) {
        current = null;
        if (count >= limit && fresh == 0) {
            return PageEnd.STUCK;
        }
        if (count >= limit) {
            until = oldest;
            return PageEnd.MORE;
        }
        filter++;
        until = null;
        seen.clear();
        return filter < filters.size() ? PageEnd.MORE : PageEnd.DONE;
    }

    /** Why a {@linkplain PageEnd#STUCK stuck} backlog cannot be read to its end. */
    String stuckReason(int limit) {
        return "the relay returned " + count + " events at or before created_at " + until + " that were all seen"
                + " already: at least " + limit + " events share created_at " + oldest + ", so paging with"
                + " until/limit cannot tell whether it reached the rest of the group backlog (a page size above the"
                + " most events in one second is needed: BUZZ_NIP29_PAGE_SIZE, at most what the relay returns for one"
                + " filter)";
    }

    /** Held backlog moderation, oldest first (ties by id). */
    List<NostrEvent> heldStored() {
        List<NostrEvent> events = new ArrayList<>(heldStored.values());
        events.sort(Comparator.comparingLong(NostrEvent::createdAt).thenComparing(e -> e.id().hex()));
        return events;
    }

    /** Held live moderation, in arrival order. */
    List<NostrEvent> heldLive() {
        return List.copyOf(heldLive.values());
    }

    /** Distinct relay-signed group state events seen. */
    int signedState() {
        return signedState.size();
    }

    /** Pages asked for so far. */
    int pagesRead() {
        return pages;
    }
}

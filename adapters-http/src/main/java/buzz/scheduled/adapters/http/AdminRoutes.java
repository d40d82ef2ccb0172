package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.AdminMessagesUseCase;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminMessage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminPage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminQuery;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.MatchCount;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.Position;
import buzz.scheduled.application.port.in.QueueStatsUseCase;
import buzz.scheduled.application.port.in.QueueStatsUseCase.LatenessPercentiles;
import buzz.scheduled.application.port.in.QueueStatsUseCase.MinuteFigures;
import buzz.scheduled.application.port.in.QueueStatsUseCase.QueueFigures;
import buzz.scheduled.application.port.in.QueueStatsUseCase.QueueStats;
import buzz.scheduled.application.port.in.QueueStatsUseCase.RecentFailure;
import buzz.scheduled.domain.nostr.Nip19;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The operators' read routes: {@code GET /v1/admin/messages} (metadata of any owner's messages, never the event
 * content) and {@code GET /v1/admin/stats} (the queue at a glance). Both behind the operator check of
 * {@link HttpApi}; both {@code Cache-Control: no-store}.
 */
final class AdminRoutes {
    static final String MESSAGES = "/v1/admin/messages";
    static final String STATS = "/v1/admin/stats";

    static final List<String> STATES = StateName.wireNames(StateName.all());
    private static final Set<String> MESSAGE_PARAMETERS = Set.of("state", "channel", "owner", "due_from", "due_before",
            "order", "limit", "cursor");
    private static final Pattern SECONDS = Pattern.compile("0|[1-9][0-9]{0,10}");
    private static final int DEFAULT_LIMIT = 50;
    private static final Pattern LIMIT = Pattern.compile("[1-9][0-9]{0,2}");
    private static final Map<String, String> NO_STORE = Map.of("Cache-Control", "no-store");
    /** The largest due time a filter takes: the year 5138, beyond any horizon. */
    private static final long MAX_SECONDS = 99_999_999_999L;

    private final QueueStatsUseCase stats;
    private final AdminMessagesUseCase messages;

    AdminRoutes(QueueStatsUseCase stats, AdminMessagesUseCase messages) {
        this.stats = stats;
        this.messages = messages;
    }

    /**
     * {@code GET /v1/admin/messages?state=&channel=&owner=&due_from=&due_before=&order=&limit=&cursor=}: every state when
     * none is given; due times in {@code [due_from, due_before)} (Unix seconds); {@code order=due} (default, earliest
     * first) or {@code order=-due} (latest first; pass the same order with the cursor). The answer also counts the
     * messages the filters match ({@code matched}, up to {@link MatchCount#CAP}, {@code matched_capped} beyond).
     */
    Answer messages(OperatorRequest request) {
        Map<String, String> query = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> parameter : request.query().entrySet()) {
            if (!MESSAGE_PARAMETERS.contains(parameter.getKey())) {
                return Answer.Problem.invalidRequest("unknown query parameter \"" + parameter.getKey()
                        + "\"; accepted: state, channel, owner, due_from, due_before, order, limit, cursor");
            }
            if (parameter.getValue().size() != 1) {
                return Answer.Problem.invalidRequest("query parameter \"" + parameter.getKey() + "\" given "
                        + parameter.getValue().size() + " times; give it once (state takes a comma list)");
            }
            query.put(parameter.getKey(), parameter.getValue().getFirst());
        }
        Set<String> states = new LinkedHashSet<>(STATES);
        if (query.containsKey("state")) {
            states.clear();
            for (String name : query.get("state").split(",", -1)) {
                if (!STATES.contains(name)) {
                    return Answer.Problem.invalidRequest("state \"" + name + "\" is not a state; use a comma list of "
                            + String.join(", ", STATES));
                }
                states.add(name);
            }
        }
        Optional<Channel> channel = Optional.empty();
        if (query.containsKey("channel")) {
            String value = query.get("channel");
            if (value.isEmpty() || value.length() > Channel.MAX_LENGTH) {
                return Answer.Problem.invalidRequest("channel must be 1 to " + Channel.MAX_LENGTH + " characters");
            }
            channel = Optional.of(new Channel(value));
        }
        Optional<PublicKey> owner = Optional.empty();
        if (query.containsKey("owner")) {
            String value = query.get("owner");
            owner = PubkeyParameter.parse(value);
            if (owner.isEmpty()) {
                return Answer.Problem.invalidRequest("owner must be a pubkey of " + PubkeyParameter.EXPECTED
                        + ", got \"" + value + "\"");
            }
        }
        int limit = DEFAULT_LIMIT;
        if (query.containsKey("limit")) {
            String value = query.get("limit");
            if (!LIMIT.matcher(value).matches() || Integer.parseInt(value) > AdminQuery.MAX_LIMIT) {
                return Answer.Problem.invalidRequest("limit must be a whole number from 1 to " + AdminQuery.MAX_LIMIT
                        + ", got \"" + value + "\"");
            }
            limit = Integer.parseInt(value);
        }
        Optional<Position> after = Optional.empty();
        if (query.containsKey("cursor")) {
            after = ListCursor.decode(query.get("cursor")).map(cursor -> new Position(cursor.dueAt(), cursor.id()));
            if (after.isEmpty()) {
                return Answer.Problem.invalidRequest("cursor is not one this server gave out; pass next_cursor "
                        + "from the previous page unchanged");
            }
        }
        Optional<Instant> dueFrom = Optional.empty();
        Optional<Instant> dueBefore = Optional.empty();
        for (String name : List.of("due_from", "due_before")) {
            if (query.containsKey(name)) {
                String value = query.get(name);
                if (!SECONDS.matcher(value).matches() || Long.parseLong(value) > MAX_SECONDS) {
                    return Answer.Problem.invalidRequest(name + " must be Unix seconds from 0 to " + MAX_SECONDS
                            + ", got \"" + value + "\"");
                }
                Optional<Instant> at = Optional.of(Instant.ofEpochSecond(Long.parseLong(value)));
                if (name.equals("due_from")) {
                    dueFrom = at;
                } else {
                    dueBefore = at;
                }
            }
        }
        String order = query.getOrDefault("order", "due");
        if (!order.equals("due") && !order.equals("-due")) {
            return Answer.Problem.invalidRequest("order must be due (earliest due first) or -due (latest first), got \""
                    + order + "\"");
        }
        AdminQuery asked = new AdminQuery(states, channel, owner, limit, after, dueFrom, dueBefore,
                order.equals("-due"));
        AdminPage page = messages.list(asked);
        MatchCount matched = messages.count(asked);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", page.items().stream().map(AdminRoutes::item).toList());
        body.put("next_cursor", page.next().map(next -> ListCursor.encode(next.dueAt(), next.id())).orElse(null));
        body.put("matched", matched.count());
        body.put("matched_capped", matched.capped());
        return new Answer.Json(200, body, NO_STORE);
    }

    /** {@code GET /v1/admin/stats}. */
    Answer stats(OperatorRequest request) {
        if (!request.query().isEmpty()) {
            return Answer.Problem.invalidRequest("unknown query parameter \"" + request.query().keySet().iterator()
                    .next() + "\"; this route takes none");
        }
        QueueStats current = stats.stats();
        QueueFigures figures = current.figures();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("now", figures.now().getEpochSecond());
        Map<String, Object> counts = new LinkedHashMap<>();
        STATES.forEach(state -> counts.put(state, figures.byState().getOrDefault(state, 0L)));
        body.put("counts", counts);
        body.put("held_before", figures.heldBefore().map(Instant::getEpochSecond).orElse(null));
        body.put("overdue", figures.overdue());
        body.put("oldest_overdue", figures.oldestOverdue().map(Instant::getEpochSecond).orElse(null));
        body.put("next_due", figures.nextDue().map(AdminRoutes::ceilSeconds).orElse(null));
        Map<String, Object> lateness = new LinkedHashMap<>();
        Optional<LatenessPercentiles> percentiles = figures.window().lateness();
        lateness.put("window_seconds", 3600);
        lateness.put("published", figures.window().published());
        lateness.put("p50", percentiles.map(LatenessPercentiles::p50).orElse(null));
        lateness.put("p90", percentiles.map(LatenessPercentiles::p90).orElse(null));
        lateness.put("p99", percentiles.map(LatenessPercentiles::p99).orElse(null));
        lateness.put("max", percentiles.map(LatenessPercentiles::max).orElse(null));
        body.put("lateness", lateness);
        Map<String, Object> throughput = new LinkedHashMap<>();
        throughput.put("published_last_hour", figures.window().published());
        throughput.put("failed_last_hour", figures.window().failed());
        throughput.put("retried_last_hour", figures.window().retried());
        throughput.put("per_minute", figures.window().minutes().stream().map(AdminRoutes::minute).toList());
        body.put("throughput", throughput);
        body.put("recent_failures", figures.recentFailures().stream().map(AdminRoutes::failure).toList());
        Map<String, Object> links = new LinkedHashMap<>();
        links.put("relay_connected", current.links().relayConnected());
        links.put("listening", current.links().listening());
        links.put("nip29_in_sync", current.links().groupFeed().orElse(null));
        body.put("links", links);
        Map<String, Object> signedIn = new LinkedHashMap<>();
        signedIn.put("pubkey", request.operator().hex());
        signedIn.put("npub", Nip19.npub(request.operator()));
        body.put("signed_in", signedIn);
        return new Answer.Json(200, body, NO_STORE);
    }

    static Map<String, Object> item(AdminMessage message) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("id", message.id().toString());
        item.put("owner", message.owner().hex());
        item.put("owner_npub", Nip19.npub(message.owner()));
        item.put("channel", message.channel().value());
        item.put("revision", message.revision());
        item.put("state", message.state());
        item.put("reason", message.reason().orElse(null));
        item.put("event_id", message.eventId().hex());
        item.put("due_at", message.dueAt().getEpochSecond());
        item.put("attempts", message.attempts());
        item.put("created_at", message.createdAt().getEpochSecond());
        item.put("updated_at", message.updatedAt().getEpochSecond());
        item.put("finished_at", message.finishedAt().map(Instant::getEpochSecond).orElse(null));
        item.put("last_error", message.lastError().orElse(null));
        item.put("purged", message.purged());
        return item;
    }

    private static Map<String, Object> minute(MinuteFigures minute) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("start", minute.start().getEpochSecond());
        body.put("published", minute.published());
        body.put("failed", minute.failed());
        body.put("lateness_p50", minute.latenessP50());
        body.put("lateness_max", minute.latenessMax());
        return body;
    }

    private static Map<String, Object> failure(RecentFailure failure) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", failure.id().toString());
        body.put("owner", failure.owner().hex());
        body.put("owner_npub", Nip19.npub(failure.owner()));
        body.put("channel", failure.channel().value());
        body.put("reason", failure.reason());
        body.put("detail", failure.detail().orElse(null));
        body.put("failed_at", failure.failedAt().getEpochSecond());
        body.put("attempts", failure.attempts());
        return body;
    }

    /** A due time in whole seconds, never earlier than the instant. */
    private static long ceilSeconds(Instant instant) {
        return instant.getNano() == 0 ? instant.getEpochSecond() : instant.getEpochSecond() + 1;
    }
}

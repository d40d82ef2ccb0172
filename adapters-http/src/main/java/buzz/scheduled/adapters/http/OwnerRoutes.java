package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.CancelMessageUseCase.CancelMessageCommand;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Cursor;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.ReviseMessageUseCase.ReviseMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.in.SendNowUseCase.SendNowCommand;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import buzz.scheduled.domain.schedule.StateName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The owner routes (docs/openapi.yaml, tag owner) of one message after authentication: create, list, get, edit, cancel
 * and send now, each scoped to the authenticated owner; the routes over many messages at once (batch create, bulk
 * cancel, series summary) are {@link OwnerBulkRoutes}. Every outcome is an {@link Answer}; nothing here throws for bad
 * input.
 */
final class OwnerRoutes {
    /** Where items live; {@code Location} is the public base URL + this + "/" + id. */
    static final String COLLECTION = "/v1/scheduled-messages";
    /** Default page size of the list. */
    static final int DEFAULT_LIMIT = 50;
    /** States listed when {@code state} is not given: the non-terminal ones. */
    static final Set<String> DEFAULT_STATES = Set.copyOf(StateName.wireNames(StateName.where(s -> !s.terminal())));
    /** Every state's wire name, in lifecycle order (the domain's list). */
    static final List<String> STATES = StateName.wireNames(StateName.all());

    /** The page's JSON around its items: {@code {"items":[],"next_cursor":"…"}} with the longest cursor. */
    static final int PAGE_ENVELOPE_BYTES = 160;

    private static final Set<String> LIST_PARAMETERS = Set.of("state", "channel", "series", "limit", "cursor");
    private static final Pattern IF_MATCH = Pattern.compile("\"([1-9][0-9]{0,9})\"");

    private final OwnerUseCases useCases;
    private final HttpSettings settings;

    OwnerRoutes(OwnerUseCases useCases, HttpSettings settings) {
        this.useCases = useCases;
        this.settings = settings;
    }

    /**
     * {@code POST /v1/scheduled-messages}: admission with stable retries (docs/openapi.yaml
     * {@code createScheduledMessage}).
     */
    Answer create(OwnerRequest request) {
        Optional<Answer> badType = contentType(request);
        if (badType.isPresent()) {
            return badType.get();
        }
        NostrEvent event;
        switch (RequestBody.read(request.body(), true)) {
            case RequestBody.Envelope.Bad bad -> {
                return bad.problem();
            }
            case RequestBody.Envelope.Empty empty -> {
                return Answer.Problem.invalidRequest("the request body has no \"event\" member");
            }
            case RequestBody.Envelope.WithEvent withEvent -> event = withEvent.event();
        }
        List<String> keys = request.header("idempotency-key");
        if (keys.size() > 1) {
            return Answer.Problem.invalidRequest("Idempotency-Key is given " + keys.size() + " times; give it once");
        }
        Optional<String> key = keys.stream().findFirst();
        if (key.isPresent()) {
            Optional<String> wrong = IdempotencyKeys.problem("Idempotency-Key", key.get(), "leave it out");
            if (wrong.isPresent()) {
                return Answer.Problem.invalidRequest(wrong.get());
            }
        }
        return createAnswer(useCases.schedule().schedule(new ScheduleMessageCommand(request.owner(), event, key)));
    }

    /** A create's answer, alone or as an item of a batch. */
    Answer createAnswer(ScheduleResult result) {
        return switch (result) {
            case ScheduleResult.Created created -> item(201, created.message(), true);
            case ScheduleResult.Replayed replayed -> item(200, replayed.message(), true);
            case ScheduleResult.Refused refused -> Answer.Problem.refusal(refused.refusal());
            case ScheduleResult.IdempotencyConflict conflict ->
                    new Answer.Problem(422, "idempotency_conflict", conflict.message());
            case ScheduleResult.RateLimited limited -> Answer.Problem.rateLimited(limited.message(),
                    limited.retryAfter());
            case ScheduleResult.Unavailable unavailable -> unavailable(unavailable.message());
        };
    }

    /** {@code GET /v1/scheduled-messages?state=&channel=&limit=&cursor=}. */
    Answer list(OwnerRequest request) {
        Map<String, List<String>> query = request.query();
        for (Map.Entry<String, List<String>> parameter : query.entrySet()) {
            if (!LIST_PARAMETERS.contains(parameter.getKey())) {
                return Answer.Problem.invalidRequest("unknown query parameter \"" + parameter.getKey()
                        + "\"; accepted: state, channel, series, limit, cursor");
            }
            if (parameter.getValue().size() > 1) {
                return Answer.Problem.invalidRequest("query parameter \"" + parameter.getKey() + "\" is given "
                        + parameter.getValue().size() + " times; give it once (state takes a comma list)");
            }
        }
        Set<String> states = DEFAULT_STATES;
        Optional<String> stateParam = single(query, "state");
        if (stateParam.isPresent()) {
            states = new LinkedHashSet<>();
            for (String name : stateParam.get().split(",", -1)) {
                if (!STATES.contains(name)) {
                    return Answer.Problem.invalidRequest("state \"" + name + "\" is not a state; use a comma list of "
                            + String.join(", ", STATES));
                }
                states.add(name);
            }
        }
        Optional<Channel> channel = Optional.empty();
        Optional<String> channelParam = single(query, "channel");
        if (channelParam.isPresent()) {
            try {
                channel = Optional.of(new Channel(channelParam.get()));
            } catch (IllegalArgumentException e) {
                return Answer.Problem.invalidRequest("channel is not a channel id: " + e.getMessage());
            }
        }
        Optional<SeriesId> series = Optional.empty();
        Optional<String> seriesParam = single(query, "series");
        if (seriesParam.isPresent()) {
            try {
                series = Optional.of(SeriesId.parse(seriesParam.get()));
            } catch (IllegalArgumentException e) {
                return Answer.Problem.invalidRequest("series must be a series id (a UUID, as a series batch answered"
                        + " it), got \"" + seriesParam.get() + "\"");
            }
        }
        int limit = DEFAULT_LIMIT;
        Optional<String> limitParam = single(query, "limit");
        if (limitParam.isPresent()) {
            String text = limitParam.get();
            if (!text.matches("[1-9][0-9]{0,3}") || Integer.parseInt(text) > ListQuery.MAX_LIMIT) {
                return Answer.Problem.invalidRequest("limit must be a whole number from 1 to "
                        + ListQuery.MAX_LIMIT + ", got \"" + text + "\"");
            }
            limit = Integer.parseInt(text);
        }
        Optional<Cursor> after = Optional.empty();
        Optional<String> cursorParam = single(query, "cursor");
        if (cursorParam.isPresent()) {
            after = ListCursor.decode(cursorParam.get());
            if (after.isEmpty()) {
                return Answer.Problem.invalidRequest("cursor is not one this server gave out; pass next_cursor "
                        + "from the previous page unchanged");
            }
        }
        int budget = settings.ownerLimits().listPageMaxBytes();
        Page page = useCases.list().list(new ListQuery(request.owner(), states, channel, limit, after, budget,
                series));
        // The store took what its size estimate fits; this measures each item's JSON exactly and stops before the
        // one that would pass the budget (the first item always goes), continuing after the last item kept.
        List<Object> items = new ArrayList<>(page.items().size());
        long bytes = PAGE_ENVELOPE_BYTES;
        Optional<Cursor> next = page.next();
        for (ScheduledMessage message : page.items()) {
            owned(request, message);
            Map<String, Object> item = ItemJson.of(message);
            bytes += ItemJson.bytes(item) + 1;
            if (!items.isEmpty() && bytes > budget) {
                ScheduledMessage last = page.items().get(items.size() - 1);
                next = Optional.of(new Cursor(last.dueAt(), last.id()));
                break;
            }
            items.add(item);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        body.put("next_cursor", next.map(ListCursor::encode).orElse(null));
        return new Answer.Json(200, body);
    }

    /** {@code GET /v1/scheduled-messages/{id}}. */
    Answer get(OwnerRequest request) {
        Optional<ScheduleId> id = id(request);
        if (id.isEmpty()) {
            return missing(request);
        }
        return useCases.get().get(request.owner(), id.get())
                .<Answer>map(message -> item(200, message, false))
                .orElseGet(() -> missing(request));
    }

    /**
     * {@code PUT /v1/scheduled-messages/{id}} with {@code If-Match} (docs/openapi.yaml {@code reviseScheduledMessage}).
     */
    Answer revise(OwnerRequest request) {
        Optional<ScheduleId> id = id(request);
        if (id.isEmpty()) {
            return missing(request);
        }
        List<String> ifMatch = request.header("if-match");
        if (ifMatch.isEmpty()) {
            return new Answer.Problem(428, "precondition_required",
                    "an edit needs If-Match: \"<revision>\" with the revision you last read (its ETag)");
        }
        var matcher = IF_MATCH.matcher(ifMatch.get(0).strip());
        if (ifMatch.size() > 1 || !matcher.matches() || Long.parseLong(matcher.group(1)) > Integer.MAX_VALUE) {
            return Answer.Problem.invalidRequest("If-Match must be one entity tag naming a revision, like \"3\"; got "
                    + String.join(", ", ifMatch));
        }
        Revision expected = new Revision(Integer.parseInt(matcher.group(1)));
        Optional<Answer> badType = contentType(request);
        if (badType.isPresent()) {
            return badType.get();
        }
        NostrEvent event;
        switch (RequestBody.read(request.body(), true)) {
            case RequestBody.Envelope.Bad bad -> {
                return bad.problem();
            }
            case RequestBody.Envelope.Empty empty -> {
                return Answer.Problem.invalidRequest("the request body has no \"event\" member");
            }
            case RequestBody.Envelope.WithEvent withEvent -> event = withEvent.event();
        }
        return change(request, useCases.revise().revise(
                new ReviseMessageCommand(request.owner(), id.get(), event, expected)), 200);
    }

    /** {@code DELETE /v1/scheduled-messages/{id}} (docs/openapi.yaml {@code cancelScheduledMessage}). */
    Answer cancel(OwnerRequest request) {
        Optional<ScheduleId> id = id(request);
        if (id.isEmpty()) {
            return missing(request);
        }
        return change(request, useCases.cancel().cancel(new CancelMessageCommand(request.owner(), id.get())), 200);
    }

    /**
     * {@code POST /v1/scheduled-messages/{id}/send-now}, optional body {@code {"event":{…}}} (docs/openapi.yaml
     * {@code sendScheduledMessageNow}).
     */
    Answer sendNow(OwnerRequest request) {
        Optional<ScheduleId> id = id(request);
        if (id.isEmpty()) {
            return missing(request);
        }
        Optional<NostrEvent> event;
        if (request.body().length > 0) {
            Optional<Answer> badType = contentType(request);
            if (badType.isPresent()) {
                return badType.get();
            }
        }
        switch (RequestBody.read(request.body(), false)) {
            case RequestBody.Envelope.Bad bad -> {
                return bad.problem();
            }
            case RequestBody.Envelope.Empty empty -> event = Optional.empty();
            case RequestBody.Envelope.WithEvent withEvent -> event = Optional.of(withEvent.event());
        }
        return change(request, useCases.sendNow().sendNow(new SendNowCommand(request.owner(), id.get(), event)), 202);
    }

    private Answer change(OwnerRequest request, OwnerChangeResult result, int okStatus) {
        return ChangeAnswers.of(result, message -> item(okStatus, message, false), () -> missing(request),
                request.header("if-match"), "read the message again and re-apply your change",
                settings.retryAfter().toSeconds());
    }

    private Answer item(int status, ScheduledMessage message, boolean withLocation) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("ETag", ItemJson.etag(message));
        if (withLocation) {
            headers.put("Location", settings.publicBaseUrl() + COLLECTION + "/" + message.id());
        }
        return new Answer.Json(status, ItemJson.of(message), headers);
    }

    /** Fails loudly (a store bug) when {@code message} is not the requesting owner's. */
    static void owned(OwnerRequest request, ScheduledMessage message) {
        if (!message.owner().equals(request.owner())) {
            throw new IllegalStateException("a request of " + request.owner() + " was answered with message "
                    + message.id() + " of another owner");
        }
    }

    private Answer unavailable(String message) {
        return Answer.Problem.unavailable(message, settings.retryAfter().toSeconds());
    }

    private static Answer missing(OwnerRequest request) {
        return Answer.Problem.notFound("no scheduled message " + request.pathParams().get("id") + " for this owner");
    }

    private static Optional<ScheduleId> id(OwnerRequest request) {
        try {
            return Optional.of(ScheduleId.parse(request.pathParams().get("id")));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> single(Map<String, List<String>> query, String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /** A body must be JSON when it has a declared type: {@code application/json}, optionally {@code charset=utf-8}. */
    static Optional<Answer> contentType(OwnerRequest request) {
        List<String> types = request.header("content-type");
        if (types.isEmpty()) {
            return Optional.empty();
        }
        String[] parts = types.get(0).split(";");
        String media = parts[0].strip().toLowerCase(java.util.Locale.ROOT);
        boolean utf8 = true;
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip().toLowerCase(java.util.Locale.ROOT).replace("\"", "");
            if (parameter.startsWith("charset=") && !parameter.equals("charset=utf-8")) {
                utf8 = false;
            }
        }
        if (types.size() > 1 || !media.equals("application/json") || !utf8) {
            return Optional.of(new Answer.Problem(415, "invalid_request", "the request body must be "
                    + "application/json in UTF-8, got Content-Type: " + String.join(", ", types)));
        }
        return Optional.empty();
    }
}

package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.CancelMatchingUseCase.CancelMatchingCommand;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.CancelMatchingResult;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.Selection;
import buzz.scheduled.application.port.in.ScheduleBatchUseCase.BatchResult;
import buzz.scheduled.application.port.in.ScheduleBatchUseCase.ScheduleBatchCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase.SeriesSummary;
import buzz.scheduled.domain.nostr.StrictJson;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The owner routes (docs/openapi.yaml, tag owner) over many messages at once, after authentication: the batch create,
 * the bulk cancel and the series summary, each scoped to the authenticated owner. A batch item is answered as a single
 * create of {@link OwnerRoutes} would answer it. Every outcome is an {@link Answer}; nothing here throws for bad input.
 */
final class OwnerBulkRoutes {
    /** The batch create. */
    static final String BATCH = OwnerRoutes.COLLECTION + "/batch";
    /** The bulk cancel. */
    static final String CANCEL_MATCHING = OwnerRoutes.COLLECTION + "/cancel";
    /** Where series summaries live: this + "/" + series id. */
    static final String SERIES = OwnerRoutes.COLLECTION + "/series";

    private static final Set<String> SELECTION_MEMBERS = Set.of("channel", "series", "due_after", "due_before");
    /** The latest instant a due bound may name: 9999-12-31T23:59:59Z. */
    private static final long MAX_SECONDS = 253_402_300_799L;

    private final OwnerRoutes single;
    private final OwnerUseCases useCases;
    private final Consumer<String> itemRefusals;

    /**
     * @param single       the routes of one message, whose create answers each item of a batch
     * @param itemRefusals told the code of each refused item of a batch (the batch itself answers 200), so that
     *                     refusals are counted alike whether they came alone or in a batch
     */
    OwnerBulkRoutes(OwnerRoutes single, OwnerUseCases useCases, Consumer<String> itemRefusals) {
        this.single = single;
        this.useCases = useCases;
        this.itemRefusals = itemRefusals;
    }

    /**
     * {@code POST /v1/scheduled-messages/batch} (docs/openapi.yaml {@code createScheduledMessageBatch}): up to 100
     * events under one NIP-98 header whose {@code payload} covered the whole body (checked before this route runs),
     * each answered on its own in {@code results}, in order.
     */
    Answer batch(OwnerRequest request) {
        Optional<Answer> badType = OwnerRoutes.contentType(request);
        if (badType.isPresent()) {
            return badType.get();
        }
        BatchBody.Read.Batch batch;
        switch (BatchBody.read(request.body())) {
            case BatchBody.Read.Bad bad -> {
                return bad.problem();
            }
            case BatchBody.Read.Batch read -> batch = read;
        }
        BatchResult result = useCases.batch().scheduleBatch(new ScheduleBatchCommand(request.owner(), batch.items(),
                batch.series()));
        return switch (result) {
            case BatchResult.RateLimited limited -> Answer.Problem.rateLimited(limited.message(),
                    limited.retryAfter());
            case BatchResult.Answered answered -> {
                List<Object> results = new ArrayList<>(answered.results().size());
                for (ScheduleResult item : answered.results()) {
                    results.add(batchItem(request, item));
                }
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("results", results);
                body.put("series_id", answered.series().map(SeriesId::toString).orElse(null));
                yield new Answer.Json(200, body);
            }
        };
    }

    /** One item of a batch's {@code results}: its status with the item, or with the error a single create gives. */
    private Map<String, Object> batchItem(OwnerRequest request, ScheduleResult result) {
        Map<String, Object> item = new LinkedHashMap<>();
        Answer answer = single.createAnswer(result);
        item.put("status", answer.status());
        switch (answer) {
            case Answer.Json json -> {
                ScheduledMessage message = switch (result) {
                    case ScheduleResult.Created created -> created.message();
                    case ScheduleResult.Replayed replayed -> replayed.message();
                    default -> throw new IllegalStateException("an item answer without a message: " + result);
                };
                OwnerRoutes.owned(request, message);
                item.put("item", json.body());
            }
            case Answer.Problem problem -> {
                item.put("error", problem.code());
                item.put("message", problem.message());
                itemRefusals.accept(problem.code());
            }
            case Answer.Text text -> throw new IllegalStateException("a create never answers text");
            case Answer.Empty empty -> throw new IllegalStateException("a create never answers nothing");
        }
        return item;
    }

    /**
     * {@code POST /v1/scheduled-messages/cancel} (docs/openapi.yaml {@code cancelScheduledMessages}): body
     * {@code {"channel":…}}, {@code {"series":…}}, {@code {"due_after":…,"due_before":…}} or several together.
     */
    Answer cancelMatching(OwnerRequest request) {
        Optional<Answer> badType = OwnerRoutes.contentType(request);
        if (badType.isPresent()) {
            return badType.get();
        }
        Selection selection;
        switch (selection(request.body())) {
            case Parsed.Bad bad -> {
                return bad.problem();
            }
            case Parsed.Good<Selection> good -> selection = good.value();
        }
        return switch (useCases.cancelMatching().cancelMatching(new CancelMatchingCommand(request.owner(),
                selection))) {
            case CancelMatchingResult.Cancelled cancelled -> {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("cancelled", cancelled.cancelled());
                body.put("sending", cancelled.sending());
                yield new Answer.Json(200, body);
            }
            case CancelMatchingResult.RateLimited limited -> Answer.Problem.rateLimited(limited.message(),
                    limited.retryAfter());
        };
    }

    /** A value read from a request, or the answer refusing it. */
    private sealed interface Parsed<T> {
        record Good<T>(T value) implements Parsed<T> {
        }

        record Bad<T>(Answer.Problem problem) implements Parsed<T> {
        }
    }

    /** The bulk cancel's selection: strict JSON, known members, at least one, each of its type. */
    private static Parsed<Selection> selection(byte[] body) {
        Map<?, ?> object;
        switch (RequestBody.object(body, "with channel, series, due_after and/or due_before, e.g. {\"series\":\"…\"}",
                SELECTION_MEMBERS, "accepted: channel, series, due_after, due_before")) {
            case RequestBody.JsonObject.Bad bad -> {
                return new Parsed.Bad<>(bad.problem());
            }
            case RequestBody.JsonObject.Members members -> object = members.members();
        }
        if (object.isEmpty()) {
            return new Parsed.Bad<>(Answer.Problem.invalidRequest("the request body selects nothing; give channel,"
                    + " series, due_after and/or due_before"));
        }
        try {
            Optional<Channel> channel = Optional.ofNullable(object.get("channel")).map(value -> {
                if (!(value instanceof String text)) {
                    throw new IllegalArgumentException("channel must be a string, got " + StrictJson.describe(value));
                }
                return new Channel(text);
            });
            Optional<SeriesId> series = Optional.ofNullable(object.get("series")).map(value -> {
                if (!(value instanceof String text)) {
                    throw new IllegalArgumentException("series must be a string, got " + StrictJson.describe(value));
                }
                return SeriesId.parse(text);
            });
            Optional<Instant> dueAfter = dueBound(object, "due_after");
            Optional<Instant> dueBefore = dueBound(object, "due_before");
            return new Parsed.Good<>(new Selection(channel, series, dueAfter, dueBefore));
        } catch (IllegalArgumentException e) {
            return new Parsed.Bad<>(Answer.Problem.invalidRequest(e.getMessage()));
        }
    }

    /** A due bound in Unix seconds, when the member is given (null counts as absent). */
    private static Optional<Instant> dueBound(Map<?, ?> object, String name) {
        Object value = object.get(name);
        if (value == null) {
            return Optional.empty();
        }
        if (!(value instanceof Long seconds) || seconds < 0 || seconds > MAX_SECONDS) {
            throw new IllegalArgumentException(name + " must be Unix seconds from 0 to " + MAX_SECONDS + ", got "
                    + StrictJson.describe(value));
        }
        return Optional.of(Instant.ofEpochSecond(seconds));
    }

    /** {@code GET /v1/scheduled-messages/series/{series}} (docs/openapi.yaml {@code getScheduledMessageSeries}). */
    Answer series(OwnerRequest request) {
        String text = request.pathParams().get("series");
        Optional<SeriesId> series;
        try {
            series = Optional.of(SeriesId.parse(text));
        } catch (IllegalArgumentException e) {
            series = Optional.empty();
        }
        Optional<SeriesSummary> summary = series.flatMap(id -> useCases.series().seriesSummary(request.owner(), id));
        if (summary.isEmpty()) {
            return Answer.Problem.notFound("no series " + text + " for this owner");
        }
        SeriesSummary found = summary.get();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("series_id", found.series().toString());
        body.put("total", found.total());
        body.put("pending", found.pending());
        body.put("published", found.published());
        body.put("cancelled", found.cancelled());
        body.put("failed", found.failed());
        body.put("next_due_at", found.nextDueAt().map(Instant::getEpochSecond).orElse(null));
        body.put("last_due_at", found.lastDueAt().map(Instant::getEpochSecond).orElse(null));
        return new Answer.Json(200, body);
    }
}

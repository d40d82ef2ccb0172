package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.AdminMessageDetailUseCase;
import buzz.scheduled.application.port.in.OperatorCancelUseCase;
import buzz.scheduled.application.port.in.OperatorCancelUseCase.OperatorCancelCommand;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.RequeueMessageUseCase;
import buzz.scheduled.application.port.in.RequeueMessageUseCase.RequeueMessageCommand;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An operator's actions on one message (docs/openapi.yaml, tag operator): {@code POST /v1/admin/messages/{id}/cancel}
 * cancels any owner's pending message, {@code POST /v1/admin/messages/{id}/requeue} makes a failed one due again with
 * the owner's stored event (optional {@code If-Match: "<revision>"}: the revision the operator saw). Both answer what
 * {@code GET /v1/admin/messages/{id}} answers (metadata and attempts, never the content) on success, the owner API's
 * codes on a refusal ({@code 404 not_found}, {@code 409} with the state conflict, {@code 412 revision_conflict},
 * {@code 422} for a deleted channel or a full window). Neither takes a query or a body.
 */
final class MessageActionRoutes {
    static final String CANCEL = AdminRoutes.MESSAGES + "/{id}/cancel";
    static final String REQUEUE = AdminRoutes.MESSAGES + "/{id}/requeue";

    private static final Pattern IF_MATCH = Pattern.compile("\"([1-9][0-9]{0,8})\"");

    private final OperatorCancelUseCase cancel;
    private final RequeueMessageUseCase requeue;
    private final AdminMessageDetailUseCase detail;
    private final Duration retryAfter;

    MessageActionRoutes(OperatorCancelUseCase cancel, RequeueMessageUseCase requeue, AdminMessageDetailUseCase detail,
                        Duration retryAfter) {
        this.cancel = cancel;
        this.requeue = requeue;
        this.detail = detail;
        this.retryAfter = retryAfter;
    }

    /** {@code POST /v1/admin/messages/{id}/cancel}. */
    Answer cancel(OperatorRequest request) {
        return onMessage(request, id -> answer(request, cancel.cancel(new OperatorCancelCommand(request.operator(),
                id))));
    }

    /** {@code POST /v1/admin/messages/{id}/requeue}, optionally with {@code If-Match}. */
    Answer requeue(OperatorRequest request) {
        return onMessage(request, id -> requeue(request, id));
    }

    /** Refuses a query or a body and an id that is none; else {@code action} on the message's id. */
    private static Answer onMessage(OperatorRequest request, Function<ScheduleId, Answer> action) {
        Optional<Answer> bad = OperatorRoutes.noQueryNoBody(request, Set.of());
        if (bad.isPresent()) {
            return bad.get();
        }
        return id(request).map(action).orElseGet(() -> missing(request));
    }

    private Answer requeue(OperatorRequest request, ScheduleId id) {
        List<String> ifMatch = request.header("if-match");
        Optional<Revision> revision = Optional.empty();
        if (!ifMatch.isEmpty()) {
            Matcher matcher = IF_MATCH.matcher(ifMatch.getFirst().strip());
            if (ifMatch.size() > 1 || !matcher.matches()) {
                return Answer.Problem.invalidRequest("If-Match must be one entity tag naming a revision, like \"3\";"
                        + " got " + String.join(", ", ifMatch));
            }
            revision = Optional.of(new Revision(Integer.parseInt(matcher.group(1))));
        }
        return answer(request, requeue.requeue(new RequeueMessageCommand(request.operator(), id, revision)));
    }

    private Answer answer(OperatorRequest request, OwnerChangeResult result) {
        return ChangeAnswers.of(result, message -> detail.detail(message.id())
                        .<Answer>map(found -> {
                            Map<String, Object> body = AdminRoutes.item(found.message());
                            body.put("attempts", found.attempts().stream().map(AttemptRoutes::attempt).toList());
                            return new Answer.Json(200, body, Map.of("Cache-Control", "no-store"));
                        })
                        .orElseGet(() -> missing(request)),
                () -> missing(request), request.header("if-match"),
                "its owner changed it since you read it: read it again", retryAfter.toSeconds());
    }

    private static Optional<ScheduleId> id(OperatorRequest request) {
        try {
            return Optional.of(ScheduleId.parse(request.pathParams().get("id")));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Answer missing(OperatorRequest request) {
        return Answer.Problem.notFound("no scheduled message " + request.pathParams().get("id"));
    }
}

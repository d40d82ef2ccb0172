package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.AdminMessageDetailUseCase;
import buzz.scheduled.application.port.in.AdminMessageDetailUseCase.AdminMessageDetail;
import buzz.scheduled.application.port.in.MessageAttemptsUseCase;
import buzz.scheduled.domain.schedule.AttemptOutcome;
import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a message's delivery attempts show (docs/openapi.yaml, schema {@code Attempt}): to its owner,
 * {@code GET /v1/scheduled-messages/{id}/attempts}; to operators, {@code GET /v1/admin/messages/{id}} (the message's
 * metadata and its attempts, never the event content). Both {@code Cache-Control: no-store}.
 */
final class AttemptRoutes {
    static final String OWNER = OwnerRoutes.COLLECTION + "/{id}/attempts";
    static final String OPERATOR = AdminRoutes.MESSAGES + "/{id}";

    private static final Map<String, String> NO_STORE = Map.of("Cache-Control", "no-store");

    private final MessageAttemptsUseCase owners;
    private final AdminMessageDetailUseCase operators;

    AttemptRoutes(MessageAttemptsUseCase owners, AdminMessageDetailUseCase operators) {
        this.owners = owners;
        this.operators = operators;
    }

    /** {@code GET /v1/scheduled-messages/{id}/attempts}: a JSON array, oldest first. */
    Answer owner(OwnerRequest request) {
        String raw = request.pathParams().get("id");
        Optional<List<DeliveryAttempt>> attempts = id(raw).flatMap(id -> owners.attempts(request.owner(), id));
        return attempts.<Answer>map(found -> new Answer.Json(200, found.stream().map(AttemptRoutes::attempt).toList(),
                        NO_STORE))
                .orElseGet(() -> Answer.Problem.notFound("no scheduled message " + raw + " for this owner"));
    }

    /** {@code GET /v1/admin/messages/{id}}: the operators' list item plus {@code "attempts"}. */
    Answer operator(OperatorRequest request) {
        String raw = request.pathParams().get("id");
        Optional<AdminMessageDetail> detail = id(raw).flatMap(operators::detail);
        return detail.<Answer>map(found -> {
            Map<String, Object> body = AdminRoutes.item(found.message());
            body.put("attempts", found.attempts().stream().map(AttemptRoutes::attempt).toList());
            return new Answer.Json(200, body, NO_STORE);
        }).orElseGet(() -> Answer.Problem.notFound("no scheduled message " + raw));
    }

    /** One attempt: {@code at} (Unix seconds), {@code attempt}, {@code revision}, {@code outcome}, {@code reason}, {@code relay_message}. */
    static Map<String, Object> attempt(DeliveryAttempt attempt) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("at", attempt.at().getEpochSecond());
        body.put("attempt", attempt.number());
        body.put("revision", attempt.revision().number());
        body.put("outcome", attempt.outcome().wireName());
        body.put("reason", switch (attempt.outcome()) {
            case AttemptOutcome.Failed failed -> failed.reason().wireName();
            case AttemptOutcome.Published published -> null;
            case AttemptOutcome.Retry retry -> null;
        });
        body.put("relay_message", attempt.relayMessage().orElse(null));
        return body;
    }

    private static Optional<ScheduleId> id(String raw) {
        try {
            return Optional.of(ScheduleId.parse(raw));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}

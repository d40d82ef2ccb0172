package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The answer to an owner's or an operator's change of one message ({@link OwnerChangeResult}): what the route shows
 * of a changed message, or of a missing one, and otherwise the same refusal for both: {@code 412 revision_conflict}
 * with the current revision's {@code ETag}, {@code 409} with the state conflict, the admission refusal's status,
 * {@code 429 rate_limited} or {@code 503 unavailable} (docs/openapi.yaml).
 */
final class ChangeAnswers {

    private ChangeAnswers() {
    }

    /**
     * @param done       the answer for the message as it is now
     * @param missing    the answer for an unknown id
     * @param ifMatch    the {@code If-Match} values the request gave, named in a revision conflict
     * @param rereadHint what the caller should do after a revision conflict
     */
    static Answer of(OwnerChangeResult result, Function<ScheduledMessage, Answer> done, Supplier<Answer> missing,
                     List<String> ifMatch, String rereadHint, long retryAfterSeconds) {
        return switch (result) {
            case OwnerChangeResult.Done changed -> done.apply(changed.message());
            case OwnerChangeResult.NotFound notFound -> missing.get();
            case OwnerChangeResult.RevisionConflict conflict -> new Answer.Problem(412, "revision_conflict",
                    "If-Match names revision " + ifMatch.stream().findFirst().orElse("?")
                            + " but the current revision is \"" + conflict.current().number() + "\"; " + rereadHint,
                    Map.of("ETag", "\"" + conflict.current().number() + "\""));
            case OwnerChangeResult.StateConflict conflict ->
                    Answer.Problem.stateConflict(conflict.refusal(), conflict.message());
            case OwnerChangeResult.Refused refused -> Answer.Problem.refusal(refused.refusal());
            case OwnerChangeResult.RateLimited limited -> Answer.Problem.rateLimited(limited.message(),
                    limited.retryAfter());
            case OwnerChangeResult.Unavailable unavailable -> Answer.Problem.unavailable(unavailable.message(),
                    retryAfterSeconds);
        };
    }
}

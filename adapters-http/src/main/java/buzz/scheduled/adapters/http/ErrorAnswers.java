package buzz.scheduled.adapters.http;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API's error shape for what no route answered: Javalin's own refusals (no route {@code 404 not_found}, wrong
 * method {@code 405 method_not_allowed}, body over the cap {@code 413 too_large}) and exceptions out of a route. An
 * exception caused by a dependency that cannot serve now ({@link UnavailableCauses}) is {@code 503 unavailable} with
 * {@code Retry-After}; any other is a logged {@code 500 internal_error} that shows the caller nothing of it.
 */
final class ErrorAnswers {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);

    private final HttpSettings settings;
    private final BodyCap bodyCap;

    ErrorAnswers(HttpSettings settings, BodyCap bodyCap) {
        this.settings = settings;
        this.bodyCap = bodyCap;
    }

    /** The answer to a refusal of the framework's, with its status. */
    Answer framework(HttpResponseException e, Context ctx) {
        String request = ctx.req().getMethod() + " " + ctx.req().getRequestURI();
        return switch (e.getStatus()) {
            case 404 -> Answer.Problem.notFound("no route " + request);
            case 405 -> new Answer.Problem(405, "method_not_allowed", "method not allowed: " + request);
            case 413 -> bodyCap.tooLarge(-1);
            default -> new Answer.Problem(e.getStatus(), e.getStatus() >= 500 ? "internal_error" : "invalid_request",
                    e.getMessage() == null ? "request failed with status " + e.getStatus() : e.getMessage());
        };
    }

    /** The answer to an exception out of a route: {@code 503} for an unavailable dependency, else {@code 500}. */
    Answer failure(Exception e, Context ctx) {
        if (UnavailableCauses.unavailable(e)) {
            LOG.warn("{} {}: a dependency is unavailable: {}", ctx.req().getMethod(), ctx.req().getRequestURI(),
                    e.toString());
            return Answer.Problem.unavailable("a dependency of the server is unavailable; try again",
                    settings.retryAfter().toSeconds());
        }
        LOG.error("{} {} failed", ctx.req().getMethod(), ctx.req().getRequestURI(), e);
        return new Answer.Problem(500, "internal_error", "the server failed to answer this request; it was logged");
    }
}

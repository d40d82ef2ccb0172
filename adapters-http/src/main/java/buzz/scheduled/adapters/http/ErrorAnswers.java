package buzz.scheduled.adapters.http;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.eclipse.jetty.http.HttpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API's error shape for what no route answered: Javalin's own refusals (no route {@code 404 not_found}, wrong
 * method {@code 405 method_not_allowed}, body over the cap {@code 413 too_large}) and exceptions out of a route. A
 * client's fault ({@link BodyCap.ClientFault}: a body stalled past its deadline {@code 408}, an aborted upload
 * {@code 400}; a request Jetty finds malformed only when a route reads it, {@code 4xx}) is one WARN line without a
 * stack trace. An exception caused by a dependency that cannot serve now ({@link UnavailableCauses}) is
 * {@code 503 unavailable} with {@code Retry-After}; any other is a logged {@code 500 internal_error} that shows the
 * caller nothing of it. Request-derived text in log lines is escaped ({@link LogText}).
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

    /**
     * The answer to an exception out of a route: the client's fault ({@code 408}/{@code 4xx}, WARN), {@code 503}
     * for an unavailable dependency (WARN), else {@code 500} (ERROR with the stack trace).
     */
    Answer failure(Exception e, Context ctx) {
        String request = LogText.escape(ctx.req().getMethod()) + " " + LogText.escape(ctx.req().getRequestURI());
        if (e instanceof BodyCap.ClientFault fault) {
            LOG.warn("{} from {}: answered {}: {}", request, ctx.req().getRemoteAddr(), fault.problem().status(),
                    fault.problem().message());
            return fault.problem();
        }
        HttpException malformed = clientError(e);
        if (malformed != null) {
            String reason = LogText.escape(((Throwable) malformed).getMessage());
            LOG.warn("{} from {}: answered {}: the request is malformed: {}", request, ctx.req().getRemoteAddr(),
                    malformed.getCode(), reason);
            return new Answer.Problem(malformed.getCode(), "invalid_request", "the request is malformed: " + reason);
        }
        if (UnavailableCauses.unavailable(e)) {
            LOG.warn("{}: a dependency is unavailable: {}", request, e.toString());
            return Answer.Problem.unavailable("a dependency of the server is unavailable; try again",
                    settings.retryAfter().toSeconds());
        }
        LOG.error("{} failed", request, e);
        return new Answer.Problem(500, "internal_error", "the server failed to answer this request; it was logged");
    }

    /** Jetty's refusal of a malformed request (a 4xx {@link HttpException}) in {@code e}'s cause chain, or null. */
    private static HttpException clientError(Throwable e) {
        return (HttpException) UnavailableCauses.cause(e, current -> current instanceof HttpException http
                && http.getCode() >= 400 && http.getCode() < 500).orElse(null);
    }
}

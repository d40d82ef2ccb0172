package buzz.scheduled.adapters.http;

import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the API records of its requests: every request counted and timed by method, route template and status on
 * {@link HttpMetrics}, every error answer counted by its code, and one access-log line per request (logger
 * {@code buzz.access}: method, path, route template, status, milliseconds; never a header or a body; method and path
 * escaped by {@link LogText}). Also the
 * {@code GET /metrics} answer: the registry's Prometheus text (exposition format 0.0.4).
 */
final class RequestMetrics {
    /** The request attribute that holds the matched route's template; requests without one are "unmatched". */
    static final String ROUTE_ATTRIBUTE = "buzz.route";
    private static final Logger ACCESS = LoggerFactory.getLogger("buzz.access");

    private record Meters(HttpMetrics metrics, Supplier<String> text) {
    }

    /** Until {@link #use}: a registry nobody reads, and no text. */
    private volatile Meters meters = new Meters(new HttpMetrics(new SimpleMeterRegistry()), () -> "");

    /** Records on {@code registry} from now on and serves {@code prometheusText} at {@code GET /metrics}. */
    void use(MeterRegistry registry, Supplier<String> prometheusText) {
        this.meters = new Meters(new HttpMetrics(registry), prometheusText);
    }

    /** {@code GET /metrics}. */
    Answer text() {
        return new Answer.Text(200, "text/plain; version=0.0.4; charset=utf-8", meters.text().get(), Map.of());
    }

    /** One request was answered, in {@code millis} (Javalin's request logger). */
    void finished(Context ctx, float millis) {
        String route = ctx.attribute(ROUTE_ATTRIBUTE);
        String template = route == null ? "unmatched" : route;
        meters.metrics().request(ctx.req().getMethod(), template, ctx.statusCode(),
                Duration.ofNanos((long) (millis * 1_000_000)));
        if (ACCESS.isInfoEnabled()) {
            ACCESS.info("{} {} {} {} {} ms", LogText.escape(ctx.req().getMethod()),
                    LogText.escape(ctx.req().getRequestURI()), template,
                    ctx.statusCode(), String.format(Locale.ROOT, "%.1f", millis));
        }
    }

    /** A request was answered with the error {@code code}. */
    void refusal(String code) {
        meters.metrics().refusal(code);
    }

    /** Reports {@code open} as the gauge {@code buzz_http_connections_open} (call once, at start). */
    void connectionsOpen(IntSupplier open) {
        meters.metrics().connectionsOpen(open);
    }

    /** A connection was refused by a cap ({@link ConnectionGuard}'s reasons). */
    void connectionRefused(String reason) {
        meters.metrics().connectionRefused(reason);
    }

    /** A connection was closed by a timeout ({@link ConnectionGuard}'s reasons). */
    void connectionTimedOut(String reason) {
        meters.metrics().connectionTimedOut(reason);
    }

    /** How many requests finished with this method, route template and status so far. */
    long count(String method, String route, int status) {
        return meters.metrics().count(method, route, status);
    }
}

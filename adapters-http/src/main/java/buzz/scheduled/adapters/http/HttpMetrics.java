package buzz.scheduled.adapters.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * What the HTTP adapter measures, on Micrometer: {@code buzz_http_server_requests_seconds} (a histogram by method,
 * route template and status), {@code buzz_http_refusals_total} (answers with an error code, by code),
 * {@code buzz_http_connections_open} (a gauge), {@code buzz_http_connections_refused_total} (by {@code reason}:
 * {@code per_ip_limit} connections closed as they opened, {@code max_connections} times the global cap was reached
 * and accepting paused) and {@code buzz_http_connections_timed_out_total} (by {@code reason}: {@code header},
 * connections closed by the header timeout; {@code response}, answers not read whole within the body timeout). The registry is the sidecar's one registry, which {@code GET /metrics}
 * renders.
 */
final class HttpMetrics {
    /** Methods counted by name; any other (clients may send any token) is counted as {@code OTHER}. */
    private static final Set<String> KNOWN_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
    static final String REQUESTS = "buzz.http.server.requests";
    static final String REFUSALS = "buzz.http.refusals";
    static final String CONNECTIONS_OPEN = "buzz.http.connections.open";
    static final String CONNECTIONS_REFUSED = "buzz.http.connections.refused";
    static final String CONNECTIONS_TIMED_OUT = "buzz.http.connections.timed.out";
    /**
     * The histogram's bucket bounds: eleven from 5 ms to the 10 s request timeout and a little past it, instead of
     * Micrometer's ~70 percentile buckets per route and status, which would make every scrape hundreds of lines.
     */
    static final Duration[] BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofMillis(2_500), Duration.ofSeconds(5), Duration.ofSeconds(11)};

    private final MeterRegistry registry;

    HttpMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** One request finished. {@code route} is the template ({@code /v1/scheduled-messages/{id}}), never the raw path. */
    void request(String method, String route, int status, Duration elapsed) {
        timer(KNOWN_METHODS.contains(method) ? method : "OTHER", route, status).record(elapsed);
    }

    /** A request was answered with the error {@code code} (admission, state, auth, …). */
    void refusal(String code) {
        Counter.builder(REFUSALS).description("Requests answered with an error, by error code.")
                .tag("code", code).register(registry).increment();
    }

    /**
     * Reports {@code open} (how many connections are open now) as the gauge {@code buzz_http_connections_open}, and
     * registers the connection counters of every reason at zero, so that a dashboard finds each series before the
     * first refusal or timeout instead of no series at all.
     */
    void connectionsOpen(IntSupplier open) {
        Gauge.builder(CONNECTIONS_OPEN, open::getAsInt).description("HTTP connections open now.")
                .strongReference(true).register(registry);
        for (String reason : ConnectionGuard.REFUSAL_REASONS) {
            refused(reason);
        }
        for (String reason : ConnectionGuard.TIMEOUT_REASONS) {
            timedOut(reason);
        }
    }

    /** A connection was refused (or accepting paused) by a cap, {@code reason} as {@link ConnectionGuard} names it. */
    void connectionRefused(String reason) {
        refused(reason).increment();
    }

    /** A connection was closed by a timeout, {@code reason} as {@link ConnectionGuard} names it. */
    void connectionTimedOut(String reason) {
        timedOut(reason).increment();
    }

    private Counter refused(String reason) {
        return Counter.builder(CONNECTIONS_REFUSED).description("HTTP connections refused by a connection cap, by reason.")
                .tag("reason", reason).register(registry);
    }

    private Counter timedOut(String reason) {
        return Counter.builder(CONNECTIONS_TIMED_OUT).description("HTTP connections closed by a timeout, by reason.")
                .tag("reason", reason).register(registry);
    }

    /** How many requests finished with this method, route and status so far. */
    long count(String method, String route, int status) {
        Timer timer = registry.find(REQUESTS).tags("method", method, "route", route, "status",
                Integer.toString(status)).timer();
        return timer == null ? 0 : timer.count();
    }

    private Timer timer(String method, String route, int status) {
        return Timer.builder(REQUESTS)
                .description("HTTP requests answered, by method, route template and status, and how long they took.")
                .tags("method", method, "route", route, "status", Integer.toString(status))
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }
}

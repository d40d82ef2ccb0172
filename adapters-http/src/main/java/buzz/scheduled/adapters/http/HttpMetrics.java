package buzz.scheduled.adapters.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;

/**
 * What the HTTP adapter measures, on Micrometer: {@code buzz_http_server_requests_seconds} (a histogram by method,
 * route template and status) and {@code buzz_http_refusals_total} (answers with an error code, by code). The
 * registry is the sidecar's one registry, which {@code GET /metrics} renders.
 */
final class HttpMetrics {
    /** Methods counted by name; any other (clients may send any token) is counted as {@code OTHER}. */
    private static final Set<String> KNOWN_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
    static final String REQUESTS = "buzz.http.server.requests";
    static final String REFUSALS = "buzz.http.refusals";
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

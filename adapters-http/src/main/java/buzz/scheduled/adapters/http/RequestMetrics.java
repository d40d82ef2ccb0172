package buzz.scheduled.adapters.http;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters the HTTP adapter owns, written as Prometheus text (exposition format 0.0.4) for {@code GET /metrics}:
 * requests by method, route template and status, the seconds they took, and admission refusals by error code.
 * Thread-safe and lock-free on the request path.
 */
final class RequestMetrics {
    /** Methods counted by name; any other (clients may send any token) is counted as {@code OTHER}. */
    private static final java.util.Set<String> KNOWN_METHODS =
            java.util.Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");

    private final Map<RequestKey, LongAdder> requests = new ConcurrentHashMap<>();
    private final Map<RequestKey, DoubleSum> seconds = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();

    /** One request finished. {@code route} is the template ({@code /v1/scheduled-messages/{id}}), never the raw path. */
    void request(String method, String route, int status, double elapsedSeconds) {
        RequestKey key = new RequestKey(KNOWN_METHODS.contains(method) ? method : "OTHER", route, status);
        requests.computeIfAbsent(key, k -> new LongAdder()).increment();
        seconds.computeIfAbsent(key, k -> new DoubleSum()).add(elapsedSeconds);
    }

    /** An owner request was refused with {@code code} (admission, state or auth). */
    void refusal(String code) {
        refusals.computeIfAbsent(code, k -> new LongAdder()).increment();
    }

    /** How many requests finished with this method, route and status so far. */
    long count(String method, String route, int status) {
        LongAdder adder = requests.get(new RequestKey(method, route, status));
        return adder == null ? 0 : adder.sum();
    }

    /** The Prometheus text. */
    String render() {
        StringBuilder out = new StringBuilder();
        out.append("# HELP buzz_http_requests_total HTTP requests answered, by method, route template and status.\n");
        out.append("# TYPE buzz_http_requests_total counter\n");
        new TreeMap<>(requests).forEach((key, count) ->
                out.append("buzz_http_requests_total").append(key.labels()).append(' ').append(count.sum()).append('\n'));
        out.append("# HELP buzz_http_request_seconds_total Seconds spent answering HTTP requests.\n");
        out.append("# TYPE buzz_http_request_seconds_total counter\n");
        new TreeMap<>(seconds).forEach((key, sum) ->
                out.append("buzz_http_request_seconds_total").append(key.labels()).append(' ').append(sum.value())
                        .append('\n'));
        out.append("# HELP buzz_http_refusals_total Owner requests refused, by error code.\n");
        out.append("# TYPE buzz_http_refusals_total counter\n");
        new TreeMap<>(refusals).forEach((code, count) ->
                out.append("buzz_http_refusals_total{code=\"").append(escape(code)).append("\"} ")
                        .append(count.sum()).append('\n'));
        return out.toString();
    }

    private static String escape(String label) {
        return label.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    private record RequestKey(String method, String route, int status) implements Comparable<RequestKey> {
        String labels() {
            return "{method=\"" + escape(method) + "\",route=\"" + escape(route) + "\",status=\"" + status + "\"}";
        }

        @Override
        public int compareTo(RequestKey other) {
            int byRoute = route.compareTo(other.route);
            if (byRoute != 0) {
                return byRoute;
            }
            int byMethod = method.compareTo(other.method);
            return byMethod != 0 ? byMethod : Integer.compare(status, other.status);
        }
    }

    /** A double that only grows, updated without a lock. */
    private static final class DoubleSum {
        private final java.util.concurrent.atomic.DoubleAdder adder = new java.util.concurrent.atomic.DoubleAdder();

        void add(double value) {
            adder.add(value);
        }

        double value() {
            return adder.sum();
        }
    }
}

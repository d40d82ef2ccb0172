package buzz.scheduled.adapters.http;

import java.util.Map;
import java.util.Optional;

/**
 * The answers of the two probes. {@code GET /healthz}: {@code 200 {"status":"up"}}, or {@code 503 unhealthy} with
 * the {@link HealthCheck}'s reason. {@code GET /readyz}: {@code 200 {"status":"ready"}}, or {@code 503 not_ready}
 * with {@code Retry-After} when the {@link ReadinessCheck} says so, throws, answers nothing or does not answer
 * within the request timeout (it runs under the {@link DeadlineRunner}).
 */
final class ProbeAnswers {
    private final ReadinessCheck readiness;
    private final DeadlineRunner deadline;
    private final HttpSettings settings;
    private volatile HealthCheck health = HealthCheck.ALWAYS;

    ProbeAnswers(ReadinessCheck readiness, DeadlineRunner deadline, HttpSettings settings) {
        this.readiness = readiness;
        this.deadline = deadline;
        this.settings = settings;
    }

    /** What {@code GET /healthz} asks from now on. */
    void reportHealth(HealthCheck check) {
        this.health = check;
    }

    /** {@code GET /healthz}. */
    Answer health() {
        Optional<String> failure;
        try {
            failure = health.failure();
        } catch (RuntimeException e) {
            failure = Optional.of("the health check failed: " + e);
        }
        return failure.<Answer>map(reason -> new Answer.Problem(503, "unhealthy", reason))
                .orElseGet(() -> new Answer.Json(200, Map.of("status", "up")));
    }

    /** {@code GET /readyz}. */
    Answer readiness() {
        Answer answer = deadline.run(() -> switch (check()) {
            case ReadinessCheck.Readiness.Ready ready -> new Answer.Json(200, Map.of("status", "ready"));
            case ReadinessCheck.Readiness.NotReady notReady -> notReady(notReady.reason());
        });
        if (answer instanceof Answer.Problem problem && problem.status() == 503
                && !"not_ready".equals(problem.code())) {
            return notReady("the readiness check did not answer within " + settings.requestTimeout().toMillis()
                    + " ms");
        }
        return answer;
    }

    private ReadinessCheck.Readiness check() {
        try {
            ReadinessCheck.Readiness answer = readiness.check();
            return answer == null ? new ReadinessCheck.Readiness.NotReady("readiness check gave no answer") : answer;
        } catch (RuntimeException e) {
            return new ReadinessCheck.Readiness.NotReady("readiness check failed: " + e);
        }
    }

    private Answer notReady(String reason) {
        return new Answer.Problem(503, "not_ready", reason,
                Map.of("Retry-After", Long.toString(settings.retryAfter().toSeconds())));
    }
}

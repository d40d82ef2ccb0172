package buzz.scheduled.adapters.http;

import java.util.Optional;

/**
 * Whether the process can still do its job at all (for {@code GET /healthz}): a failure means only a restart of the
 * process helps (e.g. its embedded database died and could not be restarted), so a supervisor should restart it. A
 * dependency that is merely unreachable for now is a readiness matter ({@link ReadinessCheck}), not this. Must answer
 * at once from memory and never throw.
 */
@FunctionalInterface
public interface HealthCheck {

    /** Always healthy. */
    HealthCheck ALWAYS = Optional::empty;

    /** Why the process cannot do its job, or empty when it can. */
    Optional<String> failure();
}

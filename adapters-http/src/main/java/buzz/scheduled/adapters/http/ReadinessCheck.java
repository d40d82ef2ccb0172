package buzz.scheduled.adapters.http;

/**
 * Whether the process can serve owner requests (for {@code GET /readyz}): typically "the database answers a
 * trivial query". The HTTP API calls it on a separate thread and treats no answer within its request timeout
 * as not ready, so an implementation may block; it should not throw (a throw counts as not ready).
 */
@FunctionalInterface
public interface ReadinessCheck {

    /** Checks now; {@link Readiness.NotReady#reason()} is shown to the caller. */
    Readiness check();

    /** The answer of a check. */
    sealed interface Readiness {
        /** Ready to serve. */
        record Ready() implements Readiness {
        }

        /** Not ready, for {@code reason} (e.g. "database did not answer: connection refused"). */
        record NotReady(String reason) implements Readiness {
            public NotReady {
                if (reason == null || reason.isBlank()) {
                    throw new IllegalArgumentException("a not-ready answer needs a reason");
                }
            }
        }
    }
}

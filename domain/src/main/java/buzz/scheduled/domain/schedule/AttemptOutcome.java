package buzz.scheduled.domain.schedule;

/**
 * What one delivery attempt of a scheduled message came to (docs/openapi.yaml, schema {@code Attempt}): the relay took
 * the event, the attempt is to be tried again later, or the message failed for good.
 */
public sealed interface AttemptOutcome {

    /** The name used in the API and the database: {@code published}, {@code retry} or {@code failed}. */
    String wireName();

    /** The relay accepted the event ({@code OK true}, or a {@code duplicate:} answer), or a look-up found it there. */
    record Published() implements AttemptOutcome {
        @Override
        public String wireName() {
            return "published";
        }
    }

    /** A transient answer (no answer, {@code rate-limited:}, {@code error:}, a dropped connection): tried again. */
    record Retry() implements AttemptOutcome {
        @Override
        public String wireName() {
            return "retry";
        }
    }

    /** The message ended {@code failed} with {@code reason}. */
    record Failed(FailureReason reason) implements AttemptOutcome {
        public Failed {
            if (reason == null) {
                throw new IllegalArgumentException("a failed attempt needs its reason");
            }
        }

        @Override
        public String wireName() {
            return "failed";
        }
    }
}

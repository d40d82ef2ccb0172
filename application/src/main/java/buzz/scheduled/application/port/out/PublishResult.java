package buzz.scheduled.application.port.out;

import java.util.Set;

/**
 * What the relay made of one publish attempt (SPEC §3.7, NIP-01 {@code OK} prefixes).
 */
public sealed interface PublishResult {

    /**
     * The relay stored the event: {@code OK true}, including {@code duplicate:} for an event it already had.
     *
     * @param duplicate whether the relay said {@code duplicate:}
     * @param message   the relay's message, possibly empty
     */
    record Published(boolean duplicate, String message) implements PublishResult {
        public Published {
            if (message == null) {
                throw new IllegalArgumentException("message is missing (use \"\" when the relay sent none)");
            }
        }
    }

    /**
     * The relay refused the event for good ({@code OK false} with {@code invalid:}, {@code pow:},
     * {@code blocked:} or {@code restricted:}); sending it again would not help.
     *
     * @param prefix  the machine-readable prefix without the colon, one of {@link #PREFIXES}
     * @param message the human-readable rest of the relay's message, possibly empty
     */
    record Rejected(String prefix, String message) implements PublishResult {
        /** The NIP-01 prefixes that mean a permanent refusal. */
        public static final Set<String> PREFIXES = Set.of("invalid", "pow", "blocked", "restricted");

        public Rejected {
            if (prefix == null || !PREFIXES.contains(prefix)) {
                throw new IllegalArgumentException(
                        "rejection prefix must be one of " + PREFIXES + ", got " + prefix);
            }
            if (message == null) {
                throw new IllegalArgumentException("message is missing (use \"\" when the relay sent none)");
            }
        }
    }

    /**
     * The event may or may not have reached the relay, or the relay asked us to come back later
     * ({@code rate-limited:}, {@code error:}, an unknown prefix, no answer in time, a dropped socket, no
     * connection, AUTH that did not help). Retry later with backoff; re-sending the same event is harmless.
     *
     * @param reason a short text starting with what happened, e.g. {@code "rate-limited: slow down"},
     *               {@code "timeout: no OK within PT5S"}, {@code "dropped: connection closed (1006)"}
     */
    record Transient(String reason) implements PublishResult {
        public Transient {
            if (reason == null || reason.isBlank()) {
                throw new IllegalArgumentException("reason is missing");
            }
        }
    }
}

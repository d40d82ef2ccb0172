package buzz.scheduled.application.port.out;

import java.util.Set;

/**
 * What the relay made of one publish attempt (NIP-01 {@code OK} prefixes; docs/delivery.md, "The hot path").
 */
public sealed interface PublishResult {

    /**
     * A short token naming what happened, for metrics and logs: {@code ok}, {@code duplicate}, {@code found}, a
     * NIP-01 prefix ({@code invalid}, {@code blocked}, {@code rate-limited}, …), {@code too-large}, or the first word
     * of a transient reason from a bounded list ({@link Transient#KINDS}: {@code rate-limited}, {@code timeout},
     * {@code dropped}, …; {@code other} for any other word), or {@code not-sent}.
     */
    String kind();

    /** How the relay came to have the event. */
    enum Acceptance {
        /** {@code OK true} to this frame. */
        OK,
        /** {@code OK true "duplicate: …"}: it already had the event. */
        DUPLICATE,
        /** The answer was lost, but asking the relay for the id ({@code REQ} with {@code ids}) found the event. */
        FOUND
    }

    /**
     * The relay has the event: {@code OK true} (also {@code duplicate:}), or it was found by id after the answer was
     * lost.
     *
     * @param acceptance how we know
     * @param message    the relay's message, possibly empty
     */
    record Published(Acceptance acceptance, String message) implements PublishResult {
        public Published {
            if (acceptance == null) {
                throw new IllegalArgumentException("acceptance is missing");
            }
            if (message == null) {
                throw new IllegalArgumentException("message is missing (use \"\" when the relay sent none)");
            }
        }

        /** {@code OK true}, with {@code duplicate} telling whether the relay said {@code duplicate:}. */
        public Published(boolean duplicate, String message) {
            this(duplicate ? Acceptance.DUPLICATE : Acceptance.OK, message);
        }

        /** Whether the relay said {@code duplicate:}. */
        public boolean duplicate() {
            return acceptance == Acceptance.DUPLICATE;
        }

        @Override
        public String kind() {
            return switch (acceptance) {
                case OK -> "ok";
                case DUPLICATE -> "duplicate";
                case FOUND -> "found";
            };
        }
    }

    /**
     * The relay refused the event for good ({@code OK false} with {@code invalid:}, {@code pow:}, {@code blocked:} or
     * {@code restricted:}), or cannot take its frame at all ({@code too-large}: its NIP-11 {@code max_message_length}
     * is smaller, or it closed the connection on that frame); sending it again would not help.
     *
     * @param prefix  the machine-readable prefix without the colon, one of {@link #PREFIXES}
     * @param message the human-readable rest of the relay's message (or what we saw), possibly empty
     */
    record Rejected(String prefix, String message) implements PublishResult {
        /** The NIP-01 prefixes that mean a permanent refusal, and {@code too-large}. */
        public static final Set<String> PREFIXES = Set.of("invalid", "pow", "blocked", "restricted", "too-large");

        public Rejected {
            if (prefix == null || !PREFIXES.contains(prefix)) {
                throw new IllegalArgumentException(
                        "rejection prefix must be one of " + PREFIXES + ", got " + prefix);
            }
            if (message == null) {
                throw new IllegalArgumentException("message is missing (use \"\" when the relay sent none)");
            }
        }

        @Override
        public String kind() {
            return prefix;
        }
    }

    /**
     * The event may or may not have reached the relay and asking for it did not find it, or the relay asked us to
     * come back later ({@code rate-limited:}, {@code error:}, an unknown prefix, no answer in time, a dropped socket,
     * no connection, AUTH that did not help). Retry later with backoff; re-sending the same event is harmless.
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

        @Override
        public String kind() {
            int colon = reason.indexOf(':');
            String word = colon > 0 ? reason.substring(0, colon) : "unknown";
            // A bounded vocabulary: the kind becomes a metrics label, and a relay may put any word before a colon.
            return KINDS.contains(word) ? word : "other";
        }

        /**
         * The kinds a transient answer may have: NIP-01's retryable prefixes and the client's own words; any other
         * first word is {@code other}.
         */
        public static final Set<String> KINDS = Set.of("rate-limited", "error", "auth-required",
                "mute", "timeout", "dropped", "interrupted", "unknown");
    }

    /**
     * The frame was never written to the relay's connection: its send deadline passed while it waited (a stalled
     * relay, a reconnect), or it was taken back (shutdown). Nothing reached the relay.
     *
     * @param reason a short text saying why
     */
    record NotSent(String reason) implements PublishResult {
        public NotSent {
            if (reason == null || reason.isBlank()) {
                throw new IllegalArgumentException("reason is missing");
            }
        }

        @Override
        public String kind() {
            return "not-sent";
        }
    }
}

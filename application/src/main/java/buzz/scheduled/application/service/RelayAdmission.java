package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayLimits.Limitation;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.ProofOfWork;
import buzz.scheduled.domain.schedule.AdmissionRules.Timing;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The admission checks that come from what the relay says it accepts (its NIP-11 {@code limitation}, read through
 * {@link RelayLimits}), so that an event the relay would refuse is refused at admission with the relay's limit in
 * the message instead of failing {@code relay_rejected} at its due time:
 * <ul>
 *   <li>{@code too_large} when the content has more UTF-8 bytes than {@code max_content_length} (bytes are the
 *       strictest way relays count it: strfry, khatru and nostr-rs-relay count bytes, JavaScript relays count
 *       UTF-16 units, never more than bytes), when the event has more tags than {@code max_event_tags}, or when the
 *       {@code ["EVENT",<event>]} message the sidecar will send has more UTF-8 bytes than
 *       {@code max_message_length};</li>
 *   <li>{@code pow_too_low} when the event's NIP-13 proof of work ({@link ProofOfWork#credited()}: the leading zero
 *       bits of its id, but no more than the target its {@code nonce} tag commits to) is below
 *       {@code min_pow_difficulty}: only the author can mine an event, before signing it;</li>
 *   <li>for an event sent now (send-now with a new event) the relay's {@code created_at} window: further ahead
 *       than the smaller of {@code BUZZ_RELAY_MAX_FUTURE_SECONDS} and {@code created_at_upper_limit} is
 *       {@code time_too_far}, further behind than the smaller of {@code BUZZ_RELAY_MAX_FUTURE_SECONDS} and
 *       {@code created_at_lower_limit} is {@code time_in_past}.</li>
 * </ul>
 * A scheduled event (create, edit) is published at or after its {@code created_at}, so the relay's upper limit
 * never applies to it and its lower limit only bounds how late it may still go out (delivery's concern); the
 * window is not checked for it here. The send-now window is the smaller of {@code BUZZ_RELAY_MAX_FUTURE_SECONDS}
 * and the relay's {@code created_at_upper_limit}.
 *
 * <p>A limit the relay states as 0 is no limit ({@link Limitation}). {@code auth_required} and
 * {@code restricted_writes} refuse nothing here: the first is met by the sidecar's NIP-42 AUTH with its own key
 * (whether the relay then takes other authors' events from it is the operator's configuration), the second names
 * no condition admission could check (the {@code nip29} and {@code http} access policies check membership
 * themselves; with the {@code relay} policy the relay decides at publish).
 */
final class RelayAdmission {
    /** Bytes of {@code ["EVENT",} and {@code ]} around the event in the message the relay client writes. */
    static final int EVENT_MESSAGE_OVERHEAD = "[\"EVENT\",]".length();

    private final RelayLimits limits;
    private final Duration configuredWindow;

    /**
     * @param limits           the relay's stated limits (refreshed elsewhere; read on every admission)
     * @param configuredWindow {@code BUZZ_RELAY_MAX_FUTURE_SECONDS}
     */
    RelayAdmission(RelayLimits limits, Duration configuredWindow) {
        if (limits == null || configuredWindow == null || configuredWindow.isNegative()) {
            throw new IllegalArgumentException("relay admission needs the relay's limits and a configured window");
        }
        this.limits = limits;
        this.configuredWindow = configuredWindow;
    }

    /** The first refusal the relay's limits give {@code event} admitted with {@code timing} at {@code now}. */
    Optional<Refusal> refusal(NostrEvent event, Timing timing, Instant now) {
        Limitation limitation = limits.current();
        OptionalInt maxContent = limitation.maxContentLength();
        if (maxContent.isPresent()) {
            int bytes = event.content().getBytes(StandardCharsets.UTF_8).length;
            if (bytes > maxContent.getAsInt()) {
                return refuse(RefusalCode.TOO_LARGE, "content is " + bytes + " bytes; the relay accepts at most "
                        + maxContent.getAsInt() + " bytes of content (its NIP-11 max_content_length)");
            }
        }
        OptionalInt maxTags = limitation.maxEventTags();
        if (maxTags.isPresent() && event.tags().size() > maxTags.getAsInt()) {
            return refuse(RefusalCode.TOO_LARGE, "the event has " + event.tags().size() + " tags; the relay accepts"
                    + " at most " + maxTags.getAsInt() + " tags (its NIP-11 max_event_tags)");
        }
        OptionalInt maxMessage = limitation.maxMessageLength();
        if (maxMessage.isPresent()) {
            long bytes = eventMessageBytes(event);
            if (bytes > maxMessage.getAsInt()) {
                return refuse(RefusalCode.TOO_LARGE, "the event's [\"EVENT\",…] message is " + bytes
                        + " bytes; the relay accepts messages of at most " + maxMessage.getAsInt()
                        + " bytes (its NIP-11 max_message_length)");
            }
        }
        OptionalInt minPow = limitation.minPowDifficulty();
        if (minPow.isPresent()) {
            ProofOfWork pow = ProofOfWork.of(event);
            if (pow.credited() < minPow.getAsInt()) {
                return refuse(RefusalCode.POW_TOO_LOW, "the event's id has " + pow.difficulty() + " leading zero bits"
                        + pow.committedTarget().stream().mapToObj(target -> " and its nonce tag commits to a target"
                        + " of " + target).findFirst().orElse("") + " (NIP-13 proof of work); the relay requires at"
                        + " least " + minPow.getAsInt() + " (its NIP-11 min_pow_difficulty): mine the event to that"
                        + " difficulty before signing it");
            }
        }
        if (timing == Timing.IMMEDIATE) {
            long ahead = event.createdAt() - now.getEpochSecond();
            Window future = futureWindow(limitation);
            if (ahead > future.seconds()) {
                return refuse(RefusalCode.TIME_TOO_FAR, "created_at " + event.createdAt() + " is " + ahead
                        + " s ahead of now (" + now.getEpochSecond() + "); an event sent now may be at most "
                        + future.seconds() + " s ahead (" + future.source() + ")");
            }
            Window past = pastWindow(limitation);
            if (-ahead > past.seconds()) {
                return refuse(RefusalCode.TIME_IN_PAST, "created_at " + event.createdAt() + " is " + -ahead
                        + " s behind now (" + now.getEpochSecond() + "); an event sent now may be at most "
                        + past.seconds() + " s behind (" + past.source() + ")");
            }
        }
        return Optional.empty();
    }

    /**
     * How far from now, either way, an event sent now may be: the smaller of {@code BUZZ_RELAY_MAX_FUTURE_SECONDS}
     * and the relay's {@code created_at_upper_limit} (the send-now window of the stored event).
     */
    Duration window() {
        return Duration.ofSeconds(futureWindow(limits.current()).seconds());
    }

    /** Where {@link #window()} comes from, for messages: the variable or the relay's NIP-11 field. */
    String windowSource() {
        return futureWindow(limits.current()).source();
    }

    /** Bytes of the {@code ["EVENT",<event>]} message: the event as {@link NostrEventJson#write} writes it. */
    static long eventMessageBytes(NostrEvent event) {
        return NostrEventJson.write(event).getBytes(StandardCharsets.UTF_8).length + EVENT_MESSAGE_OVERHEAD;
    }

    private record Window(long seconds, String source) {
    }

    private static Optional<Refusal> refuse(RefusalCode code, String message) {
        return Optional.of(new Refusal(code, message));
    }

    private Window futureWindow(Limitation limitation) {
        return smaller(limitation.createdAtUpperLimit(), "the relay's NIP-11 created_at_upper_limit");
    }

    /** A {@code created_at_lower_limit} of 0 is no limit, as absent is (relays publish 0 for "unset"). */
    private Window pastWindow(Limitation limitation) {
        return smaller(limitation.createdAtLowerLimit(), "the relay's NIP-11 created_at_lower_limit");
    }

    private Window smaller(OptionalLong relayLimit, String relaySource) {
        long configured = configuredWindow.toSeconds();
        if (relayLimit.isPresent() && relayLimit.getAsLong() < configured) {
            return new Window(relayLimit.getAsLong(), relaySource);
        }
        return new Window(configured, "BUZZ_RELAY_MAX_FUTURE_SECONDS");
    }
}

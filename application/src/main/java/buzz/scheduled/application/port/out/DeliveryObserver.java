package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.util.Optional;

/**
 * Told of every recorded delivery outcome, for metrics and the one log line per outcome. Called from the delivery
 * threads after the outcome was written: implementations must be quick and must not throw.
 */
public interface DeliveryObserver {

    /** One recorded outcome. */
    void outcome(DeliveryReport report);

    /** An observer that does nothing. */
    DeliveryObserver NONE = report -> {
    };

    /** What a recorded outcome was. */
    enum Outcome {
        /** {@code published}: the relay accepted the event ({@code OK true}, {@code duplicate:}, or found by id). */
        PUBLISHED,
        /** Back to {@code scheduled} with a retry time after a transient answer or an unsent frame. */
        RETRIED,
        /** {@code failed relay_rejected}. */
        REJECTED,
        /** {@code failed expired}. */
        EXPIRED,
        /** {@code failed access_denied}. */
        ACCESS_DENIED,
        /** {@code failed channel_deleted}. */
        CHANNEL_DELETED
    }

    /**
     * One delivery outcome (never the event content).
     *
     * @param id         the scheduled message
     * @param eventId    the event of the revision that was delivered (or tried)
     * @param channel    its channel ({@code h} tag)
     * @param revision   its revision number
     * @param attempts   claims made so far, this one included
     * @param outcome    what was recorded
     * @param relayKind  what the relay (or the connection) answered, as a short token: {@code ok}, {@code duplicate},
     *                   {@code found} (an unknown outcome resolved by asking the relay), a NIP-01 {@code OK} prefix such
     *                   as {@code invalid}, {@code blocked}, {@code rate-limited}, {@code error}, {@code auth-required},
     *                   or {@code timeout}, {@code dropped}, {@code not-sent}, {@code too-large}; {@code none} when
     *                   nothing was sent
     * @param detail     a short human sentence (the relay's words for a refusal), possibly empty
     * @param lateness   published − due on the database clock, for {@link Outcome#PUBLISHED}
     */
    record DeliveryReport(ScheduleId id, EventId eventId, Channel channel, int revision, int attempts, Outcome outcome,
                          String relayKind, String detail, Optional<Duration> lateness) {
        public DeliveryReport {
            if (id == null || eventId == null || channel == null || outcome == null || relayKind == null
                    || detail == null || lateness == null) {
                throw new IllegalArgumentException("a delivery report has a missing field");
            }
        }
    }
}

package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Publishes already signed events to the relay (NIP-01 {@code ["EVENT", <event>]}) and reports each answer
 * classified as docs/delivery.md describes. Implementations send the event exactly as signed, answer NIP-42 AUTH
 * when the relay asks for it, resolve an unknown outcome (no answer in time, a connection lost after the frame was
 * written) by asking the relay for the event id before reporting it transient, and never throw for relay trouble:
 * every outcome is a {@link PublishResult}.
 */
public interface RelayPublisher {

    /**
     * Sends {@code event} and waits for the relay's answer.
     *
     * @param event   the exact signed event to publish
     * @param timeout the longest this call may take, connection, AUTH and one retry included; positive
     * @return {@link PublishResult.Published} for {@code OK true} (also {@code duplicate:}),
     *         {@link PublishResult.Rejected} for a permanent refusal, {@link PublishResult.Transient} for
     *         anything worth retrying later, {@link PublishResult.NotSent} when the frame never left
     * @throws IllegalArgumentException when {@code timeout} is not positive
     */
    PublishResult publish(NostrEvent event, Duration timeout);

    /**
     * Queues {@code publication} behind the frames already waiting on the relay connection and returns at once (the
     * pipelined path: many frames wait for their {@code OK}s together). {@code answer} is called exactly once, on a
     * relay thread, with the outcome; it must be quick and must not throw. The frame is never written to the socket
     * after {@link Publication#sendBy()}: such a publication is answered {@link PublishResult.NotSent}.
     */
    void publish(Publication publication, Consumer<PublishResult> answer);

    /**
     * Asks the relay whether it has the event of {@code publication} without sending it (NIP-01 {@code REQ} with
     * {@code ids}, read up to {@code EOSE}): for a message that may have reached the relay before its claim was lost,
     * and is now too late to send (docs/delivery.md, "Unknown outcomes"). Queued like a publication (its
     * {@link Publication#sendBy()} and {@link Publication#held()} apply the same way); {@code answer} is called exactly
     * once, on a relay thread, with {@link PublishResult.Published} ({@link PublishResult.Acceptance#FOUND}) when the
     * relay has the event, {@link PublishResult.Transient} when it does not or could not be asked (the reason says
     * which), or {@link PublishResult.NotSent} when the question was never asked.
     */
    void lookUp(Publication publication, Consumer<PublishResult> answer);

    /**
     * Publishes {@code publication} unless the relay already has its event: an earlier claim wrote it and its node
     * stopped before the answer came ({@link DeliveryStore.EarlierSend#OUTCOME_UNKNOWN}; docs/delivery.md, "Unknown
     * outcomes"). The relay is asked for the id first ({@code REQ} with {@code ids}, up to {@code EOSE}, after NIP-42
     * AUTH when the relay wants it for reading); found is {@link PublishResult.Published}
     * ({@link PublishResult.Acceptance#FOUND}); not found, the frame is written and answered as by
     * {@link #publish(Publication, Consumer)}; a question the relay could not answer before the deadline is
     * {@link PublishResult.Transient}. Queued like a publication; {@code answer} is called exactly once.
     */
    void resolveThenPublish(Publication publication, Consumer<PublishResult> answer);

    /**
     * Takes back every queued publication whose frame has not been written yet, answering each
     * {@link PublishResult.NotSent} (graceful shutdown: their claims can be given back at once).
     *
     * @return how many were taken back
     */
    int withdrawUnsent();

    /**
     * One stored event to publish.
     *
     * @param eventId   the event's id (the relay's {@code OK} names it)
     * @param eventJson the exact signed event as NIP-01 wire JSON (sent as it is, inside {@code ["EVENT", …]})
     * @param sendBy    a {@link System#nanoTime()} reading after which the frame must not be written to the socket
     * @param held      asked right before the frame is written: false means the claim was lost, and the frame is
     *                  not written ({@link PublishResult.NotSent})
     * @param timeout   how long to wait for the relay's answer once the frame is written (never past
     *                  {@code sendBy}); positive
     */
    record Publication(EventId eventId, String eventJson, long sendBy, BooleanSupplier held, Duration timeout) {
        public Publication {
            if (eventId == null || eventJson == null || eventJson.isEmpty() || held == null) {
                throw new IllegalArgumentException("a publication needs an event id, the event's JSON and a claim "
                        + "check");
            }
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("publish timeout must be positive, got " + timeout);
            }
        }
    }
}

package buzz.scheduled.bootstrap.delivery;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.function.Consumer;

/**
 * Sits right in front of the real relay client and records every publish with the database clock read just
 * before the event is handed to it, so tests can assert that nothing reaches the relay before its due time (by
 * the database clock) and measure lateness.
 */
final class RecordingPublisher implements RelayPublisher {

    /**
     * One publish.
     *
     * @param node    which sidecar sent it
     * @param eventId the event
     * @param dueAt   its {@code created_at}
     * @param sentAt  the database clock just before it was handed to the relay client
     * @param result  what the relay answered
     */
    record Send(String node, EventId eventId, Instant dueAt, Instant sentAt, PublishResult result) {
        Duration lateness() {
            return Duration.between(dueAt, sentAt);
        }

        boolean duplicate() {
            return result instanceof PublishResult.Published published && published.duplicate();
        }
    }

    private final String node;
    private final RelayPublisher relay;
    private final StoreClock clock;
    private final Collection<Send> sink;

    RecordingPublisher(String node, RelayPublisher relay, StoreClock clock, Collection<Send> sink) {
        this.node = node;
        this.relay = relay;
        this.clock = clock;
        this.sink = sink;
    }

    @Override
    public PublishResult publish(NostrEvent event, Duration timeout) {
        Instant sentAt = clock.now();
        PublishResult result = relay.publish(event, timeout);
        sink.add(new Send(node, event.id(), Instant.ofEpochSecond(event.createdAt()), sentAt, result));
        return result;
    }

    /** The pipelined path: the database clock is read as the frame is queued, the send recorded with its answer. */
    @Override
    public void publish(Publication publication, Consumer<PublishResult> answer) {
        Instant sentAt = clock.now();
        NostrEvent event = switch (NostrEventJson.read(publication.eventJson())) {
            case NostrEventJson.Decoded.Event decoded -> decoded.event();
            case NostrEventJson.Decoded.Malformed malformed ->
                    throw new IllegalStateException("the dispatcher sent a malformed event: " + malformed.reason());
        };
        relay.publish(publication, result -> {
            sink.add(new Send(node, event.id(), Instant.ofEpochSecond(event.createdAt()), sentAt, result));
            answer.accept(result);
        });
    }

    @Override
    public void lookUp(Publication publication, Consumer<PublishResult> answer) {
        relay.lookUp(publication, answer);
    }

    /** Not recorded as a send: the relay is asked first and may never get the frame. */
    @Override
    public void resolveThenPublish(Publication publication, Consumer<PublishResult> answer) {
        relay.resolveThenPublish(publication, answer);
    }

    @Override
    public int withdrawUnsent() {
        return relay.withdrawUnsent();
    }
}

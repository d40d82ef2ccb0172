package buzz.scheduled.bootstrap.delivery;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.ScheduleStore;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;

/**
 * Sits right in front of the real relay client and records every publish with the database clock read just
 * before the event leaves, so tests can assert that nothing reaches the relay before its due time (by the
 * database clock) and measure lateness.
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
    private final ScheduleStore clock;
    private final Collection<Send> sink;

    RecordingPublisher(String node, RelayPublisher relay, ScheduleStore clock, Collection<Send> sink) {
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
}

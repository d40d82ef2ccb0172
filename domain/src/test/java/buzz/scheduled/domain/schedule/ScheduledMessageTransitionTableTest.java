package buzz.scheduled.domain.schedule;

import static buzz.scheduled.domain.schedule.MessageFixture.DUE;
import static buzz.scheduled.domain.schedule.MessageFixture.EARLIER;
import static buzz.scheduled.domain.schedule.MessageFixture.LEASE_UNTIL;
import static buzz.scheduled.domain.schedule.MessageFixture.MAX_LATENESS;
import static buzz.scheduled.domain.schedule.MessageFixture.NOW;
import static buzz.scheduled.domain.schedule.MessageFixture.ORIGINAL;
import static buzz.scheduled.domain.schedule.MessageFixture.OTHER_TOKEN;
import static buzz.scheduled.domain.schedule.MessageFixture.RELAY_WINDOW;
import static buzz.scheduled.domain.schedule.MessageFixture.REVISED;
import static buzz.scheduled.domain.schedule.MessageFixture.SENT_NOW;
import static buzz.scheduled.domain.schedule.MessageFixture.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.ScheduleState.Cancelled;
import buzz.scheduled.domain.schedule.ScheduleState.Claimed;
import buzz.scheduled.domain.schedule.ScheduleState.Failed;
import buzz.scheduled.domain.schedule.ScheduleState.Published;
import buzz.scheduled.domain.schedule.ScheduleState.Scheduled;
import buzz.scheduled.domain.schedule.ScheduleState.Sending;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every (state × operation) pair of the scheduled-message aggregate, allowed and refused, as one table. Each
 * operation is called the way its legitimate caller would (the claim holder's token, the current revision,
 * the owner's {@code If-Match}, a time that passes every timing rule), so what decides the outcome is the
 * state alone. The timing and fencing edges are in {@link ScheduledMessageFencingTest}.
 */
class ScheduledMessageTransitionTableTest {

    private static final Instant RETRY_AT = NOW.plusSeconds(30);
    private static final Instant RENEWED_UNTIL = NOW.plusSeconds(120);
    private static final Instant REAP_AT = LEASE_UNTIL.plusSeconds(1);

    /** The six states, each with the data a real row in that state has. */
    enum Start {
        SCHEDULED(MessageFixture::scheduled),
        CLAIMED(MessageFixture::claimed),
        SENDING(MessageFixture::sending),
        PUBLISHED(() -> MessageFixture.in(new Published(EARLIER), 1)),
        CANCELLED(() -> MessageFixture.purgedIn(new Cancelled(EARLIER), 0)),
        FAILED(() -> MessageFixture.purgedIn(new Failed(FailureReason.RELAY_REJECTED, EARLIER), 1));

        private final Supplier<ScheduledMessage> message;

        Start(Supplier<ScheduledMessage> message) {
            this.message = message;
        }

        ScheduledMessage message() {
            return message.get();
        }
    }

    /** Every operation, called with the arguments its legitimate caller would pass. */
    enum Operation {
        REVISE(NOW, m -> m.revise(REVISED, m.revision(), NOW)),
        CANCEL(NOW, m -> m.cancel(NOW)),
        SEND_NOW_WITH_EVENT(NOW, m -> m.sendNow(SENT_NOW, RELAY_WINDOW, NOW)),
        SEND_NOW_STORED(NOW, m -> m.sendNow(RELAY_WINDOW, NOW)),
        CLAIM(NOW, m -> m.claim(OTHER_TOKEN, LEASE_UNTIL, NOW)),
        PUBLISH(NOW, m -> m.publish(TOKEN, NOW)),
        RETRY_LATER(NOW, m -> m.retryLater(TOKEN, RETRY_AT, MAX_LATENESS, NOW)),
        FAIL(NOW, m -> m.fail(TOKEN, FailureReason.RELAY_REJECTED, NOW)),
        RELEASE(NOW, m -> m.release(TOKEN, NOW)),
        RENEW_LEASE(NOW, m -> m.renewLease(TOKEN, RENEWED_UNTIL, NOW)),
        REAP(REAP_AT, m -> m.reap(REAP_AT)),
        REVOKE(NOW, m -> m.revoke(FailureReason.CHANNEL_DELETED, NOW));

        private final Instant at;
        private final Function<ScheduledMessage, Object> call;

        Operation(Instant at, Function<ScheduledMessage, Object> call) {
            this.at = at;
            this.call = call;
        }
    }

    /** Which event the resulting message carries. */
    enum Payload {
        ORIGINAL_EVENT(Optional.of(ORIGINAL), EventFixture.CHANNEL),
        REVISED_EVENT(Optional.of(REVISED.event()), "general-2"),
        SENT_NOW_EVENT(Optional.of(SENT_NOW.event()), EventFixture.CHANNEL),
        /** Purged; the event id and channel of the last revision stay as metadata. */
        PURGED(Optional.empty(), EventFixture.CHANNEL);

        private final Optional<NostrEvent> event;
        private final String channel;

        Payload(Optional<NostrEvent> event, String channel) {
            this.event = event;
            this.channel = channel;
        }
    }

    sealed interface Expected {
    }

    /** A delivery transition that did not apply. */
    record Fenced() implements Expected {
    }

    /** An owner operation the state refuses. */
    record Refused(OwnerRefusal refusal) implements Expected {
    }

    /** An owner operation answered with the message as it is. */
    record Unchanged() implements Expected {
    }

    /** {@code Moved} (delivery) or {@code Changed} (owner) into exactly this. */
    record Next(boolean owner, ScheduleState state, int revision, int attempts, Payload payload, Instant dueAt)
            implements Expected {
    }

    private static Expected fenced() {
        return new Fenced();
    }

    private static Expected refused(OwnerRefusal refusal) {
        return new Refused(refusal);
    }

    private static Expected changed(ScheduleState state, int revision, int attempts, Payload payload,
                                    Instant dueAt) {
        return new Next(true, state, revision, attempts, payload, dueAt);
    }

    private static Expected moved(ScheduleState state, int attempts, Payload payload) {
        return new Next(false, state, 1, attempts, payload, DUE);
    }

    private static Arguments row(Start start, Operation operation, Expected expected) {
        return Arguments.of(start, operation, expected);
    }

    static List<Arguments> table() {
        Scheduled retry = new Scheduled(Optional.of(RETRY_AT));
        Payload kept = Payload.ORIGINAL_EVENT;
        Payload purged = Payload.PURGED;
        Instant revisedDue = REVISED.dueAt();
        return List.of(
                row(Start.SCHEDULED, Operation.REVISE, changed(Scheduled.NOW, 2, 0, Payload.REVISED_EVENT, revisedDue)),
                row(Start.SCHEDULED, Operation.CANCEL, changed(new Cancelled(NOW), 1, 0, purged, DUE)),
                row(Start.SCHEDULED, Operation.SEND_NOW_WITH_EVENT,
                        changed(Scheduled.NOW, 2, 0, Payload.SENT_NOW_EVENT, NOW)),
                row(Start.SCHEDULED, Operation.SEND_NOW_STORED, changed(Scheduled.NOW, 1, 0, kept, DUE)),
                row(Start.SCHEDULED, Operation.CLAIM, moved(new Sending(OTHER_TOKEN, LEASE_UNTIL), 1, kept)),
                row(Start.SCHEDULED, Operation.PUBLISH, fenced()),
                row(Start.SCHEDULED, Operation.RETRY_LATER, fenced()),
                row(Start.SCHEDULED, Operation.FAIL, fenced()),
                row(Start.SCHEDULED, Operation.RELEASE, fenced()),
                row(Start.SCHEDULED, Operation.RENEW_LEASE, fenced()),
                row(Start.SCHEDULED, Operation.REAP, fenced()),
                row(Start.SCHEDULED, Operation.REVOKE,
                        moved(new Failed(FailureReason.CHANNEL_DELETED, NOW), 0, purged)),

                row(Start.CLAIMED, Operation.REVISE, changed(Scheduled.NOW, 2, 1, Payload.REVISED_EVENT, revisedDue)),
                row(Start.CLAIMED, Operation.CANCEL, changed(new Cancelled(NOW), 1, 1, purged, DUE)),
                row(Start.CLAIMED, Operation.SEND_NOW_WITH_EVENT,
                        changed(Scheduled.NOW, 2, 1, Payload.SENT_NOW_EVENT, NOW)),
                row(Start.CLAIMED, Operation.SEND_NOW_STORED, changed(Scheduled.NOW, 1, 1, kept, DUE)),
                row(Start.CLAIMED, Operation.CLAIM, fenced()),
                row(Start.CLAIMED, Operation.PUBLISH, fenced()),
                row(Start.CLAIMED, Operation.RETRY_LATER, moved(retry, 1, kept)),
                row(Start.CLAIMED, Operation.FAIL, moved(new Failed(FailureReason.RELAY_REJECTED, NOW), 1, purged)),
                row(Start.CLAIMED, Operation.RELEASE, moved(Scheduled.NOW, 1, kept)),
                row(Start.CLAIMED, Operation.RENEW_LEASE, moved(new Claimed(TOKEN, RENEWED_UNTIL), 1, kept)),
                row(Start.CLAIMED, Operation.REAP, moved(Scheduled.NOW, 1, kept)),
                row(Start.CLAIMED, Operation.REVOKE, moved(new Failed(FailureReason.CHANNEL_DELETED, NOW), 1, purged)),

                row(Start.SENDING, Operation.REVISE, refused(OwnerRefusal.DISPATCHING)),
                row(Start.SENDING, Operation.CANCEL, refused(OwnerRefusal.DISPATCHING)),
                row(Start.SENDING, Operation.SEND_NOW_WITH_EVENT, refused(OwnerRefusal.DISPATCHING)),
                row(Start.SENDING, Operation.SEND_NOW_STORED, refused(OwnerRefusal.DISPATCHING)),
                row(Start.SENDING, Operation.CLAIM, fenced()),
                // The relay has the event anyway, so a published message keeps it for the API to show.
                row(Start.SENDING, Operation.PUBLISH, moved(new Published(NOW), 1, kept)),
                row(Start.SENDING, Operation.RETRY_LATER, moved(retry, 1, kept)),
                row(Start.SENDING, Operation.FAIL, moved(new Failed(FailureReason.RELAY_REJECTED, NOW), 1, purged)),
                row(Start.SENDING, Operation.RELEASE, moved(Scheduled.NOW, 1, kept)),
                row(Start.SENDING, Operation.RENEW_LEASE, moved(new Sending(TOKEN, RENEWED_UNTIL), 1, kept)),
                row(Start.SENDING, Operation.REAP, moved(Scheduled.NOW, 1, kept)),
                row(Start.SENDING, Operation.REVOKE, fenced()),

                row(Start.PUBLISHED, Operation.REVISE, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.PUBLISHED, Operation.CANCEL, refused(OwnerRefusal.ALREADY_SENT)),
                row(Start.PUBLISHED, Operation.SEND_NOW_WITH_EVENT, refused(OwnerRefusal.ALREADY_SENT)),
                row(Start.PUBLISHED, Operation.SEND_NOW_STORED, refused(OwnerRefusal.ALREADY_SENT)),
                row(Start.PUBLISHED, Operation.CLAIM, fenced()),
                row(Start.PUBLISHED, Operation.PUBLISH, fenced()),
                row(Start.PUBLISHED, Operation.RETRY_LATER, fenced()),
                row(Start.PUBLISHED, Operation.FAIL, fenced()),
                row(Start.PUBLISHED, Operation.RELEASE, fenced()),
                row(Start.PUBLISHED, Operation.RENEW_LEASE, fenced()),
                row(Start.PUBLISHED, Operation.REAP, fenced()),
                row(Start.PUBLISHED, Operation.REVOKE, fenced()),

                row(Start.CANCELLED, Operation.REVISE, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.CANCELLED, Operation.CANCEL, new Unchanged()),
                row(Start.CANCELLED, Operation.SEND_NOW_WITH_EVENT, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.CANCELLED, Operation.SEND_NOW_STORED, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.CANCELLED, Operation.CLAIM, fenced()),
                row(Start.CANCELLED, Operation.PUBLISH, fenced()),
                row(Start.CANCELLED, Operation.RETRY_LATER, fenced()),
                row(Start.CANCELLED, Operation.FAIL, fenced()),
                row(Start.CANCELLED, Operation.RELEASE, fenced()),
                row(Start.CANCELLED, Operation.RENEW_LEASE, fenced()),
                row(Start.CANCELLED, Operation.REAP, fenced()),
                row(Start.CANCELLED, Operation.REVOKE, fenced()),

                row(Start.FAILED, Operation.REVISE, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.FAILED, Operation.CANCEL, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.FAILED, Operation.SEND_NOW_WITH_EVENT, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.FAILED, Operation.SEND_NOW_STORED, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.FAILED, Operation.CLAIM, fenced()),
                row(Start.FAILED, Operation.PUBLISH, fenced()),
                row(Start.FAILED, Operation.RETRY_LATER, fenced()),
                row(Start.FAILED, Operation.FAIL, fenced()),
                row(Start.FAILED, Operation.RELEASE, fenced()),
                row(Start.FAILED, Operation.RENEW_LEASE, fenced()),
                row(Start.FAILED, Operation.REAP, fenced()),
                row(Start.FAILED, Operation.REVOKE, fenced()));
    }

    @Test
    void table_everyStateAndOperation_coveredExactlyOnce() {
        Set<List<Object>> pairs = new HashSet<>();
        for (Arguments row : table()) {
            assertThat(pairs.add(List.of(row.get()[0], row.get()[1])))
                    .as("duplicate row %s × %s", row.get()[0], row.get()[1]).isTrue();
        }
        Set<List<Object>> every = new HashSet<>();
        Arrays.stream(Start.values()).forEach(s -> Arrays.stream(Operation.values())
                .forEach(o -> every.add(List.of(s, o))));
        assertThat(pairs).isEqualTo(every).hasSize(6 * 12);
    }

    @ParameterizedTest(name = "{0} × {1} → {2}")
    @MethodSource("table")
    void operation_inEachState_givesTheTabledOutcome(Start start, Operation operation, Expected expected) {
        ScheduledMessage before = start.message();

        Object outcome = operation.call.apply(before);

        switch (expected) {
            case Fenced f -> assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Fenced.class,
                    fencedOutcome -> assertThat(fencedOutcome.why()).contains(before.state().wireName()));
            case Refused r -> assertThat(outcome).isEqualTo(new OwnerOutcome.Refused(r.refusal()));
            case Unchanged u -> assertThat(outcome).isEqualTo(new OwnerOutcome.Unchanged(before));
            case Next next -> assertNext(before, operation, outcome, next);
        }
    }

    private static void assertNext(ScheduledMessage before, Operation operation, Object outcome, Next next) {
        ScheduledMessage after;
        if (next.owner()) {
            assertThat(outcome).isInstanceOf(OwnerOutcome.Changed.class);
            after = ((OwnerOutcome.Changed) outcome).message();
        } else {
            assertThat(outcome).isInstanceOf(DeliveryOutcome.Moved.class);
            after = ((DeliveryOutcome.Moved) outcome).message();
        }
        assertThat(after.state()).isEqualTo(next.state());
        assertThat(after.revision()).isEqualTo(new Revision(next.revision()));
        assertThat(after.attempts()).isEqualTo(next.attempts());
        assertThat(after.event()).isEqualTo(next.payload().event);
        assertThat(after.eventId()).isEqualTo(next.payload().event.map(NostrEvent::id).orElse(before.eventId()));
        assertThat(after.channel()).isEqualTo(new Channel(next.payload().channel));
        assertThat(after.dueAt()).isEqualTo(next.dueAt());
        assertThat(after.updatedAt()).isEqualTo(operation.at);
        assertThat(after.id()).isEqualTo(before.id());
        assertThat(after.owner()).isEqualTo(before.owner());
        assertThat(after.createdAt()).isEqualTo(before.createdAt());
        assertThat(after.pending()).isEqualTo(after.state() instanceof Scheduled || after.state() instanceof Claimed);
    }

    static Stream<Start> terminalStarts() {
        return Stream.of(Start.PUBLISHED, Start.CANCELLED, Start.FAILED);
    }

    @ParameterizedTest
    @MethodSource("terminalStarts")
    void terminalState_anyOperation_neverLeavesIt(Start start) {
        ScheduledMessage before = start.message();
        assertThat(before.state().terminal()).isTrue();
        for (Operation operation : Operation.values()) {
            Object outcome = operation.call.apply(before);
            assertThat(outcome).as(operation.name())
                    .isNotInstanceOfAny(DeliveryOutcome.Moved.class, OwnerOutcome.Changed.class);
        }
    }
}

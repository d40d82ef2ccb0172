package buzz.scheduled.domain.schedule;

import static buzz.scheduled.domain.schedule.MessageFixture.DUE;
import static buzz.scheduled.domain.schedule.MessageFixture.EARLIER;
import static buzz.scheduled.domain.schedule.MessageFixture.NOW;
import static buzz.scheduled.domain.schedule.MessageFixture.ORIGINAL;
import static buzz.scheduled.domain.schedule.MessageFixture.RELAY_WINDOW;
import static buzz.scheduled.domain.schedule.MessageFixture.REVISED;
import static buzz.scheduled.domain.schedule.MessageFixture.SENT_NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.ScheduleState.Cancelled;
import buzz.scheduled.domain.schedule.ScheduleState.Failed;
import buzz.scheduled.domain.schedule.ScheduleState.Published;
import buzz.scheduled.domain.schedule.ScheduleState.Scheduled;
import buzz.scheduled.domain.schedule.Transition.Step;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Transition}'s table, written out once more by hand as the product's rules: every (state × operation) pair,
 * allowed and refused. Each cell of the code's table must be the one written here, and the owner's operations, which
 * the aggregate runs itself, must give exactly the tabled outcome when called the way their legitimate caller would
 * (the current revision, the owner's {@code If-Match}, a time that passes every timing rule), so what decides the
 * outcome is the state alone. The delivery operations are the stores' conditional writes; {@code TransitionContract}
 * runs every row of the code's table against each store.
 */
class ScheduledMessageTransitionTableTest {

    /** The six states, each with the data a real row in that state has. */
    enum Start {
        SCHEDULED(StateName.SCHEDULED, MessageFixture::scheduled),
        CLAIMED(StateName.CLAIMED, MessageFixture::claimed),
        SENDING(StateName.SENDING, MessageFixture::sending),
        PUBLISHED(StateName.PUBLISHED, () -> MessageFixture.in(new Published(EARLIER), 1)),
        CANCELLED(StateName.CANCELLED, () -> MessageFixture.purgedIn(new Cancelled(EARLIER), 0)),
        // A relay refusal keeps the event (an operator may requeue it); a revocation's purge is tested on its own.
        FAILED(StateName.FAILED, () -> MessageFixture.in(new Failed(FailureReason.RELAY_REJECTED, EARLIER), 1));

        private final StateName name;
        private final Supplier<ScheduledMessage> message;

        Start(StateName name, Supplier<ScheduledMessage> message) {
            this.name = name;
            this.message = message;
        }

        ScheduledMessage message() {
            return message.get();
        }
    }

    /** The owner's operations and the operator's requeue, called with the arguments their legitimate caller would pass. */
    private static final Map<Transition, Function<ScheduledMessage, OwnerOutcome>> OWNER_CALLS = Map.of(
            Transition.REVISE, m -> m.revise(REVISED, m.revision(), NOW),
            Transition.CANCEL, m -> m.cancel(NOW),
            Transition.SEND_NOW, m -> m.sendNow(RELAY_WINDOW, NOW),
            Transition.REQUEUE, m -> m.requeue(Optional.of(m.revision()), MessageFixture.MAX_LATENESS, NOW));

    /** Which event the resulting message carries. */
    enum Payload {
        ORIGINAL_EVENT(Optional.of(ORIGINAL), EventFixture.CHANNEL),
        REVISED_EVENT(Optional.of(REVISED.event()), "general-2"),
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
        /** The cell of {@link Transition}'s table this expectation stands for. */
        Step step();
    }

    /** A delivery operation that does not apply: the store leaves the row. */
    record Fenced() implements Expected {
        @Override
        public Step step() {
            return new Step.Fenced();
        }
    }

    /** An owner operation the state refuses. */
    record Refused(OwnerRefusal refusal) implements Expected {
        @Override
        public Step step() {
            return new Step.Refused(refusal);
        }
    }

    /** An owner operation answered with the message as it is. */
    record Unchanged() implements Expected {
        @Override
        public Step step() {
            return new Step.Stays();
        }
    }

    /** A delivery operation's move into {@code to}. */
    record Moves(StateName to) implements Expected {
        @Override
        public Step step() {
            return new Step.Moves(to);
        }
    }

    /** An owner operation's change into exactly this. */
    record Changed(ScheduleState state, int revision, int attempts, Payload payload, Instant dueAt)
            implements Expected {
        @Override
        public Step step() {
            return new Step.Moves(state.stateName());
        }
    }

    private static Expected fenced() {
        return new Fenced();
    }

    private static Expected refused(OwnerRefusal refusal) {
        return new Refused(refusal);
    }

    private static Expected moves(StateName to) {
        return new Moves(to);
    }

    private static Arguments row(Start start, Transition transition, Expected expected) {
        return Arguments.of(start, transition, expected);
    }

    static List<Arguments> table() {
        Payload kept = Payload.ORIGINAL_EVENT;
        Payload purged = Payload.PURGED;
        Payload revised = Payload.REVISED_EVENT;
        Instant revisedDue = REVISED.dueAt();
        return List.of(
                row(Start.SCHEDULED, Transition.REVISE, new Changed(Scheduled.NOW, 2, 0, revised, revisedDue)),
                row(Start.SCHEDULED, Transition.CANCEL, new Changed(new Cancelled(NOW), 1, 0, purged, DUE)),
                row(Start.SCHEDULED, Transition.SEND_NOW, new Changed(Scheduled.NOW, 1, 0, kept, DUE)),
                row(Start.SCHEDULED, Transition.CLAIM, moves(StateName.SENDING)),
                row(Start.SCHEDULED, Transition.RENEW_LEASE, fenced()),
                row(Start.SCHEDULED, Transition.PUBLISH, fenced()),
                row(Start.SCHEDULED, Transition.RETRY, fenced()),
                row(Start.SCHEDULED, Transition.EXPIRE, fenced()),
                row(Start.SCHEDULED, Transition.FAIL, fenced()),
                row(Start.SCHEDULED, Transition.RELEASE, fenced()),
                row(Start.SCHEDULED, Transition.REAP, fenced()),
                row(Start.SCHEDULED, Transition.REVOKE, moves(StateName.FAILED)),
                row(Start.SCHEDULED, Transition.REQUEUE, refused(OwnerRefusal.NOT_FAILED)),

                // Only rows an earlier version left claimed are here: the owner may still change them, the reaper
                // takes them back, and nothing finishes them (a finish is for a claim that reached sending).
                row(Start.CLAIMED, Transition.REVISE, new Changed(Scheduled.NOW, 2, 1, revised, revisedDue)),
                row(Start.CLAIMED, Transition.CANCEL, new Changed(new Cancelled(NOW), 1, 1, purged, DUE)),
                row(Start.CLAIMED, Transition.SEND_NOW, new Changed(Scheduled.NOW, 1, 1, kept, DUE)),
                row(Start.CLAIMED, Transition.CLAIM, fenced()),
                row(Start.CLAIMED, Transition.RENEW_LEASE, moves(StateName.CLAIMED)),
                row(Start.CLAIMED, Transition.PUBLISH, fenced()),
                row(Start.CLAIMED, Transition.RETRY, fenced()),
                row(Start.CLAIMED, Transition.EXPIRE, fenced()),
                row(Start.CLAIMED, Transition.FAIL, fenced()),
                row(Start.CLAIMED, Transition.RELEASE, fenced()),
                row(Start.CLAIMED, Transition.REAP, moves(StateName.SCHEDULED)),
                row(Start.CLAIMED, Transition.REVOKE, moves(StateName.FAILED)),
                row(Start.CLAIMED, Transition.REQUEUE, refused(OwnerRefusal.NOT_FAILED)),

                row(Start.SENDING, Transition.REVISE, refused(OwnerRefusal.DISPATCHING)),
                row(Start.SENDING, Transition.CANCEL, refused(OwnerRefusal.DISPATCHING)),
                row(Start.SENDING, Transition.SEND_NOW, refused(OwnerRefusal.DISPATCHING)),
                row(Start.SENDING, Transition.CLAIM, fenced()),
                row(Start.SENDING, Transition.RENEW_LEASE, moves(StateName.SENDING)),
                // The relay has the event anyway, so a published message keeps it for the API to show.
                row(Start.SENDING, Transition.PUBLISH, moves(StateName.PUBLISHED)),
                row(Start.SENDING, Transition.RETRY, moves(StateName.SCHEDULED)),
                row(Start.SENDING, Transition.EXPIRE, moves(StateName.FAILED)),
                row(Start.SENDING, Transition.FAIL, moves(StateName.FAILED)),
                row(Start.SENDING, Transition.RELEASE, moves(StateName.SCHEDULED)),
                row(Start.SENDING, Transition.REAP, moves(StateName.SCHEDULED)),
                // Left to the claim's fenced finishing write.
                row(Start.SENDING, Transition.REVOKE, fenced()),
                row(Start.SENDING, Transition.REQUEUE, refused(OwnerRefusal.NOT_FAILED)),

                row(Start.PUBLISHED, Transition.REVISE, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.PUBLISHED, Transition.CANCEL, refused(OwnerRefusal.ALREADY_SENT)),
                row(Start.PUBLISHED, Transition.SEND_NOW, refused(OwnerRefusal.ALREADY_SENT)),
                row(Start.PUBLISHED, Transition.CLAIM, fenced()),
                row(Start.PUBLISHED, Transition.RENEW_LEASE, fenced()),
                row(Start.PUBLISHED, Transition.PUBLISH, fenced()),
                row(Start.PUBLISHED, Transition.RETRY, fenced()),
                row(Start.PUBLISHED, Transition.EXPIRE, fenced()),
                row(Start.PUBLISHED, Transition.FAIL, fenced()),
                row(Start.PUBLISHED, Transition.RELEASE, fenced()),
                row(Start.PUBLISHED, Transition.REAP, fenced()),
                row(Start.PUBLISHED, Transition.REVOKE, fenced()),
                row(Start.PUBLISHED, Transition.REQUEUE, refused(OwnerRefusal.ALREADY_SENT)),

                row(Start.CANCELLED, Transition.REVISE, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.CANCELLED, Transition.CANCEL, new Unchanged()),
                row(Start.CANCELLED, Transition.SEND_NOW, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.CANCELLED, Transition.CLAIM, fenced()),
                row(Start.CANCELLED, Transition.RENEW_LEASE, fenced()),
                row(Start.CANCELLED, Transition.PUBLISH, fenced()),
                row(Start.CANCELLED, Transition.RETRY, fenced()),
                row(Start.CANCELLED, Transition.EXPIRE, fenced()),
                row(Start.CANCELLED, Transition.FAIL, fenced()),
                row(Start.CANCELLED, Transition.RELEASE, fenced()),
                row(Start.CANCELLED, Transition.REAP, fenced()),
                row(Start.CANCELLED, Transition.REVOKE, fenced()),
                row(Start.CANCELLED, Transition.REQUEUE, refused(OwnerRefusal.NOT_FAILED)),

                row(Start.FAILED, Transition.REVISE, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.FAILED, Transition.CANCEL, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.FAILED, Transition.SEND_NOW, refused(OwnerRefusal.NOT_PENDING)),
                row(Start.FAILED, Transition.CLAIM, fenced()),
                row(Start.FAILED, Transition.RENEW_LEASE, fenced()),
                row(Start.FAILED, Transition.PUBLISH, fenced()),
                row(Start.FAILED, Transition.RETRY, fenced()),
                row(Start.FAILED, Transition.EXPIRE, fenced()),
                row(Start.FAILED, Transition.FAIL, fenced()),
                row(Start.FAILED, Transition.RELEASE, fenced()),
                row(Start.FAILED, Transition.REAP, fenced()),
                row(Start.FAILED, Transition.REVOKE, fenced()),
                // The owner's signed event, due again: same revision, due time and attempts; no retry time.
                row(Start.FAILED, Transition.REQUEUE, new Changed(Scheduled.NOW, 1, 1, kept, DUE)));
    }

    @Test
    void table_everyStateAndTransition_coveredExactlyOnce() {
        Set<List<Object>> pairs = new HashSet<>();
        for (Arguments row : table()) {
            assertThat(pairs.add(List.of(row.get()[0], row.get()[1])))
                    .as("duplicate row %s × %s", row.get()[0], row.get()[1]).isTrue();
        }
        Set<List<Object>> every = new HashSet<>();
        Arrays.stream(Start.values()).forEach(s -> Arrays.stream(Transition.values())
                .forEach(t -> every.add(List.of(s, t))));
        assertThat(pairs).isEqualTo(every).hasSize(StateName.values().length * Transition.values().length);
        assertThat(Arrays.stream(Start.values()).map(s -> s.name)).containsExactlyElementsOf(StateName.all());
    }

    @ParameterizedTest(name = "{1} from {0} → {2}")
    @MethodSource("table")
    void from_eachStateAndTransition_isTheTabledStep(Start start, Transition transition, Expected expected) {
        assertThat(transition.from(start.name)).isEqualTo(expected.step());
        assertThat(start.message().state().stateName()).isEqualTo(start.name);
    }

    @ParameterizedTest(name = "{1} from {0} → {2}")
    @MethodSource("table")
    void ownerOperation_inEachState_givesTheTabledOutcome(Start start, Transition transition, Expected expected) {
        Function<ScheduledMessage, OwnerOutcome> call = OWNER_CALLS.get(transition);
        assertThat(call != null).as("owner operations are exactly those the aggregate runs")
                .isEqualTo(transition.byOwner());
        assertThat(expected instanceof Moves || expected instanceof Fenced).as("only delivery steps are fenced")
                .isNotEqualTo(transition.byOwner());
        if (call == null) {
            return;
        }
        ScheduledMessage before = start.message();

        OwnerOutcome outcome = call.apply(before);

        switch (expected) {
            case Refused r -> assertThat(outcome).isEqualTo(new OwnerOutcome.Refused(r.refusal()));
            case Unchanged u -> assertThat(outcome).isEqualTo(new OwnerOutcome.Unchanged(before));
            case Changed changed -> assertChanged(before, outcome, changed);
            case Moves m -> throw new AssertionError("an owner operation is tabled as a delivery move");
            case Fenced f -> throw new AssertionError("an owner operation is tabled as fenced");
        }
    }

    private static void assertChanged(ScheduledMessage before, OwnerOutcome outcome, Changed next) {
        assertThat(outcome).isInstanceOf(OwnerOutcome.Changed.class);
        ScheduledMessage after = ((OwnerOutcome.Changed) outcome).message();
        assertThat(after.state()).isEqualTo(next.state());
        assertThat(after.revision()).isEqualTo(new Revision(next.revision()));
        assertThat(after.attempts()).isEqualTo(next.attempts());
        assertThat(after.event()).isEqualTo(next.payload().event);
        assertThat(after.eventId()).isEqualTo(next.payload().event.map(NostrEvent::id).orElse(before.eventId()));
        assertThat(after.channel()).isEqualTo(new Channel(next.payload().channel));
        assertThat(after.dueAt()).isEqualTo(next.dueAt());
        assertThat(after.updatedAt()).isEqualTo(NOW);
        assertThat(after.id()).isEqualTo(before.id());
        assertThat(after.owner()).isEqualTo(before.owner());
        assertThat(after.createdAt()).isEqualTo(before.createdAt());
        assertThat(after.token()).as("an owner's change drops any claim").isEmpty();
    }

    @Test
    void sendNowWithEvent_inEachState_followsTheSameRowsAsSendNowStored() {
        for (Start start : Start.values()) {
            OwnerOutcome stored = start.message().sendNow(RELAY_WINDOW, NOW);
            OwnerOutcome withEvent = start.message().sendNow(SENT_NOW, RELAY_WINDOW, NOW);

            assertThat(withEvent.getClass()).as(start.name()).isEqualTo(stored.getClass());
            if (withEvent instanceof OwnerOutcome.Changed changed) {
                assertThat(changed.message().revision()).isEqualTo(start.message().revision().next());
                assertThat(changed.message().event()).contains(SENT_NOW.event());
                assertThat(changed.message().dueAt()).isEqualTo(NOW);
            } else {
                assertThat(withEvent).isEqualTo(stored);
            }
        }
    }

    @Test
    void terminalStates_onlyTheOperatorsRequeueLeavesOne() {
        for (StateName state : StateName.where(StateName::terminal)) {
            for (Transition transition : Transition.values()) {
                if (transition != Transition.REQUEUE) {
                    assertThat(transition.from(state)).as("%s from %s", transition, state)
                            .isNotInstanceOf(Step.Moves.class);
                }
            }
        }
        assertThat(Transition.REQUEUE.startStates()).containsExactly(StateName.FAILED);
        assertThat(Transition.REQUEUE.target()).isEqualTo(StateName.SCHEDULED);
    }

    @Test
    void requeue_otherRevisionPurgedEventOrOlderThanTheLatenessLimit_isRefusedAndChangesNothing() {
        ScheduledMessage failed = Start.FAILED.message();
        ScheduledMessage purged = MessageFixture.purgedIn(new Failed(FailureReason.CHANNEL_DELETED, EARLIER), 1);

        assertThat(failed.requeue(Optional.of(new Revision(2)), MessageFixture.MAX_LATENESS, NOW))
                .isEqualTo(new OwnerOutcome.RevisionConflict(Revision.FIRST));
        assertThat(purged.requeue(Optional.empty(), MessageFixture.MAX_LATENESS, NOW))
                .isEqualTo(new OwnerOutcome.Refused(OwnerRefusal.EVENT_PURGED));
        assertThat(failed.requeue(Optional.empty(), MessageFixture.MAX_LATENESS,
                DUE.plus(MessageFixture.MAX_LATENESS).plusSeconds(1)))
                .isEqualTo(new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED));
        assertThat(failed.requeue(Optional.empty(), MessageFixture.MAX_LATENESS, DUE.plus(MessageFixture.MAX_LATENESS)))
                .as("exactly at the limit").isInstanceOf(OwnerOutcome.Changed.class);
    }

    @Test
    void failedState_keepsTheEventUnlessItsReasonPurgesIt() {
        for (FailureReason reason : FailureReason.values()) {
            assertThat(new Failed(reason, EARLIER).keepsEvent()).as(reason.wireName())
                    .isEqualTo(reason != FailureReason.CHANNEL_DELETED && reason != FailureReason.MEMBER_REMOVED);
        }
        assertThat(new Cancelled(EARLIER).keepsEvent()).isFalse();
        assertThat(new Published(EARLIER).keepsEvent()).isTrue();
    }

    @Test
    void startStatesAndTargets_areReadOffTheTable() {
        assertThat(Transition.CLAIM.startStates()).containsExactly(StateName.SCHEDULED);
        assertThat(Transition.CLAIM.target()).isEqualTo(StateName.SENDING);
        assertThat(Transition.REAP.startStates()).containsExactly(StateName.CLAIMED, StateName.SENDING);
        assertThat(Transition.REVOKE.startStates()).containsExactly(StateName.SCHEDULED, StateName.CLAIMED);
        assertThat(Transition.RENEW_LEASE.targets()).containsExactly(StateName.CLAIMED, StateName.SENDING);
        assertThatThrownBy(Transition.RENEW_LEASE::target).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("RENEW_LEASE");
        assertThat(Transition.CLAIM.countsAttempt()).isTrue();
        assertThat(Arrays.stream(Transition.values()).filter(Transition::countsAttempt))
                .containsExactly(Transition.CLAIM);
    }

    @Test
    void claimHoldingStates_areEnteredOnlyByTheClaimAndItsRenewal() {
        for (Transition transition : Transition.values()) {
            for (StateName target : transition.targets()) {
                if (target.holdsClaim()) {
                    assertThat(transition).as("%s enters %s", transition, target)
                            .isIn(Transition.CLAIM, Transition.RENEW_LEASE);
                }
            }
        }
    }
}

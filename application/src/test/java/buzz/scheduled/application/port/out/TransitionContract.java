package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.CancelMatchingUseCase;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.out.DeliveryStore.Claim;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.DeliveryStore.FinishResult;
import buzz.scheduled.application.port.out.DeliveryStore.Written;
import buzz.scheduled.application.port.out.OwnerMessageChanges.ReviseResult;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Admission;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.OwnerOutcome;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.StateName;
import buzz.scheduled.domain.schedule.Transition;
import buzz.scheduled.domain.schedule.Transition.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of the domain's state machine ({@link Transition#from}), allowed and refused, run against a store: a
 * message is put in the row's start state, the store's own operation for the transition is run on it (the claim, a
 * renewal, a finishing write, the reaper, a member removal; for the owner's operations, the domain's answer written
 * by compare-and-set), and the stored row must be what the table says: moved into exactly the tabled state, with
 * what that state holds ({@link StateName}), or not touched at all. Run against the in-memory fakes and against
 * PostgreSQL, so the SQL fast paths are held to the domain's rules state by state; a state or transition added to
 * the domain is run here without a change to this class.
 */
public abstract class TransitionContract<S extends OwnerMessageQueries & MessageAdmission & OwnerMessageChanges>
        extends StoreContractSupport<S> {

    /** The claim a seeded {@code claimed} or {@code sending} row is held by. */
    private static final FencingToken SEEDED_TOKEN = new FencingToken(9_000_000_000L);
    private static final Duration RETRY_DELAY = Duration.ofSeconds(30);

    protected ChannelAdministration administration;

    /** The channel administration over the rows of the store {@link #emptyStore()} made last. */
    protected abstract ChannelAdministration administration();

    @BeforeEach
    void openAdministration() {
        administration = administration();
    }

    static List<Arguments> everyTransitionFromEveryState() {
        List<Arguments> rows = new ArrayList<>();
        for (Transition transition : Transition.values()) {
            for (StateName start : StateName.values()) {
                rows.add(Arguments.of(transition, start));
            }
        }
        return rows;
    }

    @ParameterizedTest(name = "{0} from {1}")
    @MethodSource("everyTransitionFromEveryState")
    void transition_fromEachState_leavesTheRowAsTheDomainsTableSays(Transition transition, StateName start) {
        ScheduledMessage before = seeded(start);
        if (transition == Transition.REAP) {
            letTimePass(LEASE.plusSeconds(5));
            before = stored(before);
        }
        Step step = transition.from(start);

        Ran ran = run(transition, before);

        ScheduledMessage after = stored(before);
        switch (step) {
            case Step.Moves moves -> assertMoved(transition, before, after, moves.to(), ran);
            case Step.Fenced fenced -> {
                assertThat(ran.changed()).as("the store reports no change").isFalse();
                assertThat(after).as("the row is not touched").isEqualTo(before);
            }
            case Step.Refused refused -> {
                assertThat(ran.owner()).contains(new OwnerOutcome.Refused(refused.refusal()));
                assertThat(after).as("the row is not touched").isEqualTo(before);
            }
            case Step.Stays stays -> {
                assertThat(ran.owner()).contains(new OwnerOutcome.Unchanged(before));
                assertThat(after).as("the row is not touched").isEqualTo(before);
            }
        }
    }

    /**
     * The bulk cancel is the owner's cancel written for many rows at once: from each state it must leave the row as
     * the table's {@link Transition#CANCEL} row says, count a cancelled row as cancelled, and a row it refuses
     * because it is being sent as {@code sending}.
     */
    @ParameterizedTest(name = "bulk cancel from {0}")
    @org.junit.jupiter.params.provider.EnumSource(StateName.class)
    void cancelMatching_fromEachState_leavesTheRowAsTheCancelRowOfTheTableSays(StateName start) {
        ScheduledMessage before = seeded(start);
        Step step = Transition.CANCEL.from(start);

        CancelMatchingUseCase.CancelMatchingResult.Cancelled result = store.cancelMatching(ALICE,
                new CancelMatchingUseCase.Selection(Optional.of(GENERAL), Optional.empty(), Optional.empty(),
                        Optional.empty()));

        ScheduledMessage after = stored(before);
        switch (step) {
            case Step.Moves moves -> {
                assertThat(result).isEqualTo(new CancelMatchingUseCase.CancelMatchingResult.Cancelled(1, 0));
                assertMoved(Transition.CANCEL, before, after, moves.to(), Ran.store(true));
                ScheduledMessage byDomain = changed(before.cancel(now()));
                assertThat(after.state().fields().withFinishedAt(Instant.EPOCH))
                        .as("what the domain's cancel writes, but for the time")
                        .isEqualTo(byDomain.state().fields().withFinishedAt(Instant.EPOCH));
            }
            case Step.Refused refused -> {
                int sending = refused.refusal() == buzz.scheduled.domain.schedule.OwnerRefusal.DISPATCHING ? 1 : 0;
                assertThat(result).isEqualTo(new CancelMatchingUseCase.CancelMatchingResult.Cancelled(0, sending));
                assertThat(after).as("the row is not touched").isEqualTo(before);
            }
            case Step.Stays stays -> {
                assertThat(result).isEqualTo(new CancelMatchingUseCase.CancelMatchingResult.Cancelled(0, 0));
                assertThat(after).as("the row is not touched").isEqualTo(before);
            }
            case Step.Fenced fenced -> throw new AssertionError("an owner's cancel is never fenced");
        }
    }

    private void assertMoved(Transition transition, ScheduledMessage before, ScheduledMessage after, StateName to,
                             Ran ran) {
        assertThat(ran.changed()).as("the store reports the change").isTrue();
        assertThat(after.state().stateName()).as("the tabled state").isEqualTo(to);
        assertThat(after.attempts()).as("attempts")
                .isEqualTo(before.attempts() + (transition.countsAttempt() ? 1 : 0));
        assertThat(after.event().isPresent()).as("payload kept only where the state keeps it")
                .isEqualTo(after.state().keepsEvent());
        assertThat(after.token().isPresent()).as("a claim held only where the state holds one")
                .isEqualTo(to.holdsClaim());
        assertThat(after.id()).isEqualTo(before.id());
        assertThat(after.owner()).isEqualTo(before.owner());
        ScheduleState.Fields fields = after.state().fields();
        switch (transition) {
            case REVISE -> {
                assertThat(after.revision()).isEqualTo(before.revision().next());
                assertThat(after.event()).isPresent().isNotEqualTo(before.event());
            }
            case CLAIM -> {
                assertThat(after.token()).isPresent().isNotEqualTo(before.token());
                assertThat(fields.leaseUntil()).isPresent();
            }
            case RENEW_LEASE -> {
                assertThat(after.token()).isEqualTo(before.token());
                assertThat(fields.leaseUntil().orElseThrow())
                        .isAfter(before.state().fields().leaseUntil().orElseThrow());
            }
            case RETRY -> assertThat(fields.retryAt()).as("claimable again at a retry time").isPresent();
            case RELEASE, REAP -> assertThat(fields.retryAt()).as("claimable again at once").isEmpty();
            case FAIL -> assertThat(fields.reason()).contains(FailureReason.ACCESS_DENIED);
            case EXPIRE -> assertThat(fields.reason()).contains(FailureReason.EXPIRED);
            case REVOKE -> {
                assertThat(fields.reason()).contains(FailureReason.MEMBER_REMOVED);
                assertThat(after.event()).as("a revocation purges the event").isEmpty();
            }
            case CANCEL, SEND_NOW, PUBLISH -> assertThat(after.revision()).isEqualTo(before.revision());
            case REQUEUE -> {
                assertThat(fields.retryAt()).as("due again at once").isEmpty();
                assertThat(fields.finishedAt()).isEmpty();
                assertThat(after.revision()).isEqualTo(before.revision());
                assertThat(after.dueAt()).isEqualTo(before.dueAt());
                assertThat(after.event()).as("the owner's signed event").isPresent().isEqualTo(before.event());
            }
        }
        if (after.state().keepsEvent() && transition != Transition.REVISE) {
            assertThat(after.event()).isEqualTo(before.event());
        }
    }

    /** What running a transition's store operation reported: whether it changed the row, and the owner's answer. */
    private record Ran(boolean changed, Optional<OwnerOutcome> owner) {
        static Ran store(boolean changed) {
            return new Ran(changed, Optional.empty());
        }
    }

    /** Runs {@code transition} the way its caller does, on {@code before} (the only message in the store). */
    private Ran run(Transition transition, ScheduledMessage before) {
        Instant now = now();
        Claim claim = new Claim(before.id(), SEEDED_TOKEN);
        return switch (transition) {
            case REVISE -> {
                NostrEvent event = TestEvents.at(inSeconds(3600)).content("revised").build();
                OwnerOutcome outcome = before.revise(new Admission(event, before.channel(),
                        Instant.ofEpochSecond(event.createdAt())), before.revision(), now);
                yield new Ran(outcome instanceof OwnerOutcome.Changed changed
                        && store.replaceRevision(before, changed.message(), NO_LIMITS) instanceof ReviseResult.Replaced,
                        Optional.of(outcome));
            }
            case CANCEL -> written(before, before.cancel(now));
            case REQUEUE -> {
                OwnerOutcome outcome = before.requeue(Optional.of(before.revision()), Duration.ofDays(1), now);
                yield new Ran(outcome instanceof OwnerOutcome.Changed changed
                        && store.replaceRevision(before, changed.message(), NO_LIMITS) instanceof ReviseResult.Replaced,
                        Optional.of(outcome));
            }
            case SEND_NOW -> written(before, before.sendNow(Duration.ofDays(1), now));
            case CLAIM -> Ran.store(delivery.claim(10, LEASE).messages().stream()
                    .anyMatch(m -> m.claim().id().equals(before.id())));
            case RENEW_LEASE -> Ran.store(delivery.renew(List.of(claim), Duration.ofHours(1)).contains(before.id()));
            case PUBLISH -> finished(new Finish.Publish(claim, before.revision()), Written.PUBLISHED);
            case RETRY -> finished(new Finish.Retry(claim, before.revision(), RETRY_DELAY, Duration.ofDays(1),
                    "rate-limited: slow down"), Written.RESCHEDULED);
            case EXPIRE -> finished(new Finish.Retry(claim, before.revision(), RETRY_DELAY, Duration.ZERO,
                    "timeout: no OK"), Written.EXPIRED);
            case FAIL -> finished(new Finish.Fail(claim, before.revision(), FailureReason.ACCESS_DENIED, "denied"),
                    Written.FAILED);
            case RELEASE -> finished(new Finish.Release(claim, before.revision()), Written.RESCHEDULED);
            case REAP -> Ran.store(delivery.reap(Duration.ZERO) == 1);
            case REVOKE -> {
                MemberRemoved removed = administration.removeMember(GENERAL, ALICE);
                boolean leftInFlight = !before.state().terminal()
                        && !(Transition.REVOKE.from(before.state().stateName()) instanceof Step.Moves);
                assertThat(removed.inFlight()).as("counted as left to its claim").isEqualTo(leftInFlight ? 1 : 0);
                yield Ran.store(removed.failed() == 1);
            }
        };
    }

    /** The owner's answer, written by compare-and-set when it is a change. */
    private Ran written(ScheduledMessage before, OwnerOutcome outcome) {
        return new Ran(outcome instanceof OwnerOutcome.Changed changed && store.replace(before, changed.message()),
                Optional.of(outcome));
    }

    /** One finishing write; a change must be answered as {@code written}, no change as lost. */
    private Ran finished(Finish finish, Written written) {
        FinishResult result = delivery.finish(List.of(finish)).get(0);
        assertThat(result.written()).isIn(written, Written.LOST);
        return Ran.store(result.recorded());
    }

    /**
     * The only message in the store, due a minute ago, put in {@code state} with the data a real row there has (a live
     * claim of {@link #SEEDED_TOKEN}, an end time, a reason) and its payload where the state keeps it.
     */
    private ScheduledMessage seeded(StateName state) {
        ScheduledMessage created = createdMessage(dueIn(Duration.ofSeconds(-60)));
        if (state == StateName.SCHEDULED) {
            return stored(created);
        }
        Instant now = now();
        ScheduleState.Fields fields = ScheduleState.Fields.of(state);
        if (state.holdsClaim()) {
            fields = fields.withClaim(SEEDED_TOKEN, now.plus(LEASE));
        }
        if (state.terminal()) {
            fields = fields.withFinishedAt(now);
        }
        if (state.hasReason()) {
            fields = fields.withReason(FailureReason.RELAY_REJECTED);
        }
        ScheduledMessage seeded = new ScheduledMessage(created.id(), created.owner(), created.channel(),
                created.revision(), created.eventId(), created.dueAt(),
                state.keepsEvent() ? created.event() : Optional.empty(), ScheduleState.of(fields), 1,
                created.createdAt(), now);
        assertThat(store.replace(created, seeded)).as("seeding %s", state.wireName()).isTrue();
        return stored(created);
    }

    private ScheduledMessage stored(ScheduledMessage message) {
        return store.find(message.id()).orElseThrow();
    }
}

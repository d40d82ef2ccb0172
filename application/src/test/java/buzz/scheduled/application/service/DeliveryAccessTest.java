package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.InMemoryChannelAdministration;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.DeliveryObserver.Outcome;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Access at delivery and deletion's effect on it (F15; docs/scheduled-messages.md, docs/delivery.md), through
 * the pipeline: right after a claim enters {@code sending} the access policy is asked (when it wants to be) —
 * denied ends the message {@code failed access_denied} without sending, unavailable puts it off to a retry — and
 * a channel tombstone the claim statement read ends it {@code failed channel_deleted} without sending.
 */
class DeliveryAccessTest {
    private static final Channel GENERAL = new Channel(DispatchFixture.CHANNEL);

    private final DispatchFixture fx = new DispatchFixture();
    private final RecordingSignal signal = new RecordingSignal();
    private final SteppedDeliveryStore delivery = fx.stepped();
    private final DispatcherSettings settings = DispatchFixture.dispatcherSettings(DispatchFixture.deliverySettings());
    private final OwnerMessagesService owners = fx.owners();
    private final DeletionService deletion = new DeletionService(new InMemoryChannelAdministration(fx.store));
    private final AskedPolicy policy = new AskedPolicy(fx.access);

    @AfterEach
    void stop() {
        policy.release();
        fx.close();
    }

    /** Admits Alice's message in {@code general}, due a minute after {@link DispatchFixture#T0}. */
    private ScheduledMessage scheduledInAMinute() {
        NostrEvent event = TestEvents.at(T0.getEpochSecond() + 60).build();
        ScheduleResult result = owners.schedule(new ScheduleMessageCommand(TestEvents.ALICE, event, Optional.empty()));
        assertThat(result).isInstanceOf(ScheduleResult.Created.class);
        return ((ScheduleResult.Created) result).message();
    }

    /** Starts the dispatcher asking {@code access}, lets it sleep, then moves the store's clock past the due time. */
    private Dispatcher startAndPassTheDueTime(AccessPolicy access) {
        Dispatcher dispatcher = fx.start(delivery, fx.relay, access, signal, settings);
        Poll.until("the dispatcher to sleep until the due time", signal::sleeping);
        fx.clock.set(T0.plusSeconds(61));
        signal.notifyDue(Optional.empty());
        return dispatcher;
    }

    @Test
    void ownerLostAccessBeforeDueTime_failsAccessDenied_withoutSending_andIsNeverRetried() {
        ScheduledMessage message = scheduledInAMinute();
        fx.access.set(TestEvents.ALICE, GENERAL,
                new AccessPolicy.AccessDecision.Denied(RefusalCode.NOT_IN_CHANNEL, "alice left general"));

        Dispatcher dispatcher = startAndPassTheDueTime(policy);
        fx.awaitReports(message, 1);
        fx.access.set(TestEvents.ALICE, GENERAL, new AccessPolicy.AccessDecision.Allowed());
        fx.clock.advance(Duration.ofHours(1));
        int claimsBefore = delivery.claimCalls.get();
        signal.wakeUp();
        Poll.until("another pass of the claim loop", () -> delivery.claimCalls.get() > claimsBefore);

        assertThat(fx.row(message).failureReason()).contains(FailureReason.ACCESS_DENIED);
        assertThat(fx.row(message).event()).as("kept for an operator's requeue").isPresent();
        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(policy.asks).containsExactly(new Ask(TestEvents.ALICE, GENERAL, 9));
        assertThat(fx.deliveryStore.nextDueAt()).isEmpty();
        assertThat(dispatcher.counts().ended()).isEqualTo(1);
        assertThat(fx.observer.reportsOf(message.id())).singleElement().satisfies(report -> {
            assertThat(report.outcome()).isEqualTo(Outcome.ACCESS_DENIED);
            assertThat(report.relayKind()).isEqualTo("none");
            assertThat(report.detail()).isEqualTo("not_in_channel: alice left general");
        });
    }

    @Test
    void accessPolicyUnavailable_defersWithoutSending_thenSendsOnceItAnswers() {
        ScheduledMessage message = scheduledInAMinute();
        fx.access.set(TestEvents.ALICE, GENERAL, new AccessPolicy.AccessDecision.Unavailable("relay unreachable"));

        Dispatcher dispatcher = startAndPassTheDueTime(policy);
        fx.awaitReports(message, 1);
        assertThat(fx.row(message).state()).isInstanceOfSatisfying(ScheduleState.Scheduled.class,
                scheduled -> assertThat(scheduled.retryAt()).isPresent());
        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(dispatcher.counts().deferred()).isEqualTo(1);
        assertThat(fx.observer.reportsOf(message.id())).singleElement().satisfies(report -> {
            assertThat(report.outcome()).isEqualTo(Outcome.RETRIED);
            assertThat(report.detail()).isEqualTo("access policy unavailable: relay unreachable");
        });

        fx.access.set(TestEvents.ALICE, GENERAL, new AccessPolicy.AccessDecision.Allowed());
        fx.moveToRetryTime(message, signal);
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.row(message).attempts()).isEqualTo(2);
        assertThat(policy.asks).hasSize(2);
    }

    @Test
    void accessPolicyThrows_isTakenAsUnavailable_andRetriedWithoutSending() {
        ScheduledMessage message = scheduledInAMinute();
        AccessPolicy broken = (owner, channel, kind) -> {
            throw new IllegalStateException("policy callback crashed (test)");
        };

        Dispatcher dispatcher = startAndPassTheDueTime(broken);
        Poll.until("the deferral", () -> fx.row(message).state() instanceof ScheduleState.Scheduled s
                && s.retryAt().isPresent());

        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(dispatcher.counts().deferred()).isEqualTo(1);
        assertThat(fx.row(message).event()).isPresent();
    }

    @Test
    void allowed_sendsTheStoredEventAsItIs_afterAskingOnce() {
        ScheduledMessage message = scheduledInAMinute();

        startAndPassTheDueTime(policy);
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(fx.relay.receipts()).singleElement()
                .satisfies(receipt -> assertThat(receipt.event()).isEqualTo(message.event().orElseThrow()));
        assertThat(policy.asks).containsExactly(new Ask(TestEvents.ALICE, GENERAL, 9));
    }

    @Test
    void relayDecidesAccess_isNeverAskedBeforeDelivery_andTheRelaysRefusalFailsRelayRejected() {
        ScheduledMessage accepted = scheduledInAMinute();
        ScheduledMessage refused = fx.schedule(T0.plusSeconds(60), "not a member any more");
        AskedPolicy relayDecides = new AskedPolicy(new RelayDecidesAccess());
        fx.relay.always((event, timeout) -> event.id().equals(refused.eventId())
                ? new PublishResult.Rejected("restricted", "not a member of general")
                : fx.relay.relayLike().answer(event, timeout));

        startAndPassTheDueTime(relayDecides);
        fx.awaitReports(accepted, 1);
        fx.awaitReports(refused, 1);

        assertThat(relayDecides.asks).isEmpty();
        assertThat(fx.row(refused).failureReason()).contains(FailureReason.RELAY_REJECTED);
        assertThat(fx.relay.sends(refused.eventId())).isEqualTo(1);
        assertThat(fx.observer.reportsOf(refused.id())).singleElement()
                .satisfies(report -> assertThat(report.relayKind()).isEqualTo("restricted"));
    }

    @Test
    void deleteChannel_beforeDueTime_failsTheMessage_nothingIsClaimedOrSent_andAdmissionAnswersChannelNotFound() {
        ScheduledMessage message = scheduledInAMinute();

        ChannelDeleted deleted = deletion.deleteChannel(GENERAL);
        startAndPassTheDueTime(policy);
        ScheduleResult later = owners.schedule(new ScheduleMessageCommand(TestEvents.ALICE,
                TestEvents.at(T0.getEpochSecond() + 3600).build(), Optional.empty()));
        int claimsBefore = delivery.claimCalls.get();
        signal.wakeUp();
        Poll.until("a pass of the claim loop after the due time", () -> delivery.claimCalls.get() > claimsBefore);

        assertThat(deleted).isEqualTo(new ChannelDeleted(1, 1, 0, true));
        assertThat(fx.row(message).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(fx.row(message).event()).isEmpty();
        assertThat(fx.row(message).attempts()).isZero();
        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(later).isInstanceOfSatisfying(ScheduleResult.Refused.class,
                no -> assertThat(no.refusal().code()).isEqualTo(RefusalCode.CHANNEL_NOT_FOUND));
    }

    @Test
    void rowLeftScheduledInATombstonedChannel_itsClaimReadsTheTombstone_failsChannelDeletedWithoutSendingOrAsking() {
        ScheduledMessage message = scheduledInAMinute();
        ScheduleResult neighbour = owners.schedule(new ScheduleMessageCommand(TestEvents.ALICE,
                TestEvents.at(T0.getEpochSecond() + 60).channel("random").build(), Optional.empty()));
        ScheduledMessage elsewhere = ((ScheduleResult.Created) neighbour).message();
        // A tombstone without the deletion's own sweep: what an admission racing the deletion would leave.
        fx.store.addTombstone(GENERAL);
        assertThat(fx.state(message)).isEqualTo("scheduled");

        Dispatcher dispatcher = startAndPassTheDueTime(policy);
        fx.awaitReports(message, 1);
        fx.awaitReports(elsewhere, 1);

        assertThat(fx.row(message).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(fx.row(message).event()).isEmpty();
        assertThat(fx.row(message).attempts()).isEqualTo(1);
        assertThat(fx.relay.sends(message.eventId())).isZero();
        assertThat(fx.relay.sends(elsewhere.eventId())).isEqualTo(1);
        assertThat(policy.asks).as("only the neighbour is asked about")
                .containsExactly(new Ask(TestEvents.ALICE, new Channel("random"), 9));
        assertThat(dispatcher.counts().ended()).isEqualTo(1);
        assertThat(fx.observer.reportsOf(message.id())).singleElement().satisfies(report -> {
            assertThat(report.outcome()).isEqualTo(Outcome.CHANNEL_DELETED);
            assertThat(report.relayKind()).isEqualTo("none");
        });
    }

    @Test
    void channelDeletedWhileInFlight_theRetrysClaimReadsTheTombstone_failsChannelDeletedWithoutSendingAgain()
            throws Exception {
        ScheduledMessage message = scheduledInAMinute();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fx.relay.then((event, timeout) -> {
            entered.countDown();
            release.await(10, TimeUnit.SECONDS);
            return new PublishResult.Transient("dropped: connection closed (1006)");
        });

        Dispatcher dispatcher = startAndPassTheDueTime(policy);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        ChannelDeleted deleted = deletion.deleteChannel(GENERAL);
        assertThat(fx.state(message)).as("deletion leaves a claim in flight to its fenced write")
                .isEqualTo("sending");
        release.countDown();
        Poll.until("the retry", () -> fx.row(message).state() instanceof ScheduleState.Scheduled s
                && s.retryAt().isPresent());
        fx.moveToRetryTime(message, signal);
        fx.awaitReports(message, 2);

        assertThat(deleted.inFlight()).isEqualTo(1);
        assertThat(fx.row(message).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(fx.row(message).event()).isEmpty();
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(policy.asks).as("a tombstoned claim is not worth asking about").hasSize(1);
        assertThat(dispatcher.counts().ended()).isEqualTo(1);
        assertThat(fx.observer.reportsOf(message.id())).extracting(report -> report.outcome())
                .containsExactly(Outcome.RETRIED, Outcome.CHANNEL_DELETED);
    }

    @Test
    void memberRemovedBeforeDueTime_failsMemberRemoved_andNothingIsSent() {
        ScheduledMessage message = scheduledInAMinute();

        MemberRemoved removed = deletion.removeMember(GENERAL, TestEvents.ALICE);
        startAndPassTheDueTime(policy);
        int claimsBefore = delivery.claimCalls.get();
        signal.wakeUp();
        Poll.until("a pass of the claim loop after the due time", () -> delivery.claimCalls.get() > claimsBefore);

        assertThat(removed).isEqualTo(new MemberRemoved(1, 0));
        assertThat(fx.row(message).failureReason()).contains(FailureReason.MEMBER_REMOVED);
        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(policy.asks).isEmpty();
    }

    @Test
    void memberRemovedAfterTheClaim_beforeTheAccessCheckAnswers_failsAccessDenied_andNothingIsSent()
            throws Exception {
        ScheduledMessage message = scheduledInAMinute();
        policy.holdNextAsk();

        startAndPassTheDueTime(policy);
        policy.awaitAsked();
        MemberRemoved removed = deletion.removeMember(GENERAL, TestEvents.ALICE);
        // The policy's source (the relay's membership list) now knows it too.
        fx.access.set(TestEvents.ALICE, GENERAL,
                new AccessPolicy.AccessDecision.Denied(RefusalCode.NOT_IN_CHANNEL, "alice was removed"));
        policy.release();
        Poll.until("the failure", () -> fx.state(message).equals("failed"));

        assertThat(removed).as("the claim already holds the row: left to its fenced write")
                .isEqualTo(new MemberRemoved(0, 1));
        assertThat(fx.row(message).failureReason()).contains(FailureReason.ACCESS_DENIED);
        assertThat(fx.relay.receipts()).isEmpty();
    }

    @Test
    void stopWhileTheAccessPolicyIsStillAsked_theClaimIsGivenBackAtOnceWithoutWaitingForTheAnswer() throws Exception {
        ScheduledMessage message = scheduledInAMinute();
        policy.holdNextAsk();
        Dispatcher dispatcher = startAndPassTheDueTime(policy);
        policy.awaitAsked();

        Dispatcher.Shutdown shutdown = fx.stop(dispatcher, Duration.ofSeconds(10));
        ScheduleState whenStopped = fx.row(message).state();
        policy.release();

        assertThat(shutdown.released()).as("given back, not left unanswered").isEqualTo(1);
        assertThat(shutdown.unresolved()).isZero();
        assertThat(whenStopped).isEqualTo(ScheduleState.Scheduled.NOW);
        assertThat(fx.relay.receipts()).isEmpty();
    }

    @Test
    void stopWhileTheAccessPolicyIsAsked_theClaimIsGivenBackUnsent() throws Exception {
        ScheduledMessage message = scheduledInAMinute();
        policy.holdNextAsk();
        Dispatcher dispatcher = startAndPassTheDueTime(policy);
        policy.awaitAsked();

        CompletableFuture<Dispatcher.Shutdown> stopping =
                CompletableFuture.supplyAsync(() -> fx.stop(dispatcher, Duration.ofSeconds(10)));
        Poll.until("the claim loop to end", dispatcher::claimLoopEnded);
        policy.release();
        Dispatcher.Shutdown shutdown = stopping.get(10, TimeUnit.SECONDS);

        assertThat(shutdown.released()).isEqualTo(1);
        assertThat(shutdown.unfinished()).isZero();
        assertThat(fx.row(message).state()).isEqualTo(ScheduleState.Scheduled.NOW);
        assertThat(fx.row(message).token()).isEmpty();
        assertThat(fx.relay.receipts()).isEmpty();
    }

    /** One question asked of the access policy. */
    private record Ask(PublicKey owner, Channel channel, int kind) {
    }

    /** Remembers every question and passes it on; can hold one question until the test lets it answer. */
    private static final class AskedPolicy implements AccessPolicy {
        private final AccessPolicy inner;
        final List<Ask> asks = new CopyOnWriteArrayList<>();
        private volatile CountDownLatch asked = new CountDownLatch(0);
        private volatile CountDownLatch answer = new CountDownLatch(0);

        AskedPolicy(AccessPolicy inner) {
            this.inner = inner;
        }

        void holdNextAsk() {
            asked = new CountDownLatch(1);
            answer = new CountDownLatch(1);
        }

        void awaitAsked() throws InterruptedException {
            assertThat(asked.await(10, TimeUnit.SECONDS)).as("the access policy was asked").isTrue();
        }

        void release() {
            answer.countDown();
        }

        @Override
        public AccessDecision check(PublicKey owner, Channel channel, int kind) {
            asks.add(new Ask(owner, channel, kind));
            asked.countDown();
            try {
                if (!answer.await(1, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("test never let the access policy answer");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new AccessDecision.Unavailable("interrupted");
            }
            return inner.check(owner, channel, kind);
        }

        @Override
        public boolean checksBeforeDelivery() {
            return inner.checksBeforeDelivery();
        }
    }
}

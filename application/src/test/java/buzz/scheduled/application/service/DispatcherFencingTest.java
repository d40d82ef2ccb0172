package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.CHANNEL;
import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.SampleEvents;
import buzz.scheduled.application.fakes.ScriptedRelayPublisher.Receipt;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.ReviseMessageUseCase.ReviseMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.ScheduleStore;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fences around a send (SCENARIOS F2, F4, F7): a claimant that lost its claim sends nothing, a lease is
 * renewed while a send is in flight, a send whose lease cannot be renewed gives up before the lease ends, and
 * an edit revokes a claim so only the new revision reaches the relay.
 */
class DispatcherFencingTest {
    private final DispatchFixture fx = new DispatchFixture();
    private final DeliverySettings deliverySettings = DispatchFixture.deliverySettings();
    private final DispatcherSettings settings = DispatchFixture.dispatcherSettings(deliverySettings);
    private final RecordingSignal firstSignal = new RecordingSignal();
    private final SteppedDelivery first = new SteppedDelivery(fx.delivery(deliverySettings));

    @AfterEach
    void stop() {
        first.thaw();
        fx.close();
    }

    @Test
    void f2_claimantPausedLongerThanItsLease_anotherPublishes_firstChangesNothingAndSendsNothing() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "F2");
        first.freezeAfterNextClaim();
        Dispatcher paused = fx.start(first, firstSignal, settings);
        first.awaitFrozen();
        assertThat(fx.state(message)).isEqualTo("claimed");
        Instant firstLease = fx.leaseUntil(message);

        fx.clock.set(firstLease.plus(deliverySettings.reapGrace()).plusMillis(1));
        Dispatcher other = fx.start(new SteppedDelivery(fx.delivery(deliverySettings)), new RecordingSignal(), settings);
        Await.until("the other claimant to publish", () -> fx.state(message).equals("published"));
        ScheduledMessage published = fx.row(message);
        first.thaw();
        Await.until("the paused claimant's pre-send step", () -> paused.counts().fenceRejections() == 1);

        assertThat(fx.row(message)).isEqualTo(published);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(paused.counts().sent()).isZero();
        assertThat(other.counts().published()).isEqualTo(1);
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void f4_relaySlowerThanTheLease_renewalsKeepTheClaim_noRivalCanClaim_oneSend() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "slow relay");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // This fake relay ignores the publish budget so the store's clock can run past the lease while the
        // send is in flight; a real relay client would give up at the budget first (next test).
        fx.relay.always(fx.relay.stalled(entered, release));
        Dispatcher dispatcher = fx.start(first, firstSignal, settings);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        DeliveryService rival = fx.delivery(deliverySettings);

        for (int round = 0; round < 3; round++) {
            fx.clock.advance(Duration.ofSeconds(20));
            dispatcher.renewLeases();
            assertThat(fx.leaseUntil(message)).isEqualTo(fx.clock.now().plus(deliverySettings.lease()));
            assertThat(rival.reapExpiredLeases()).isZero();
            assertThat(rival.claimDue(10)).isEmpty();
        }
        assertThat(fx.clock.now()).isAfter(T0.plus(deliverySettings.lease()).plus(deliverySettings.reapGrace()));
        release.countDown();
        Await.until("publication", () -> fx.state(message).equals("published"));

        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.row(message).attempts()).isEqualTo(1);
        assertThat(dispatcher.counts().leasesLost()).isZero();
    }

    @Test
    void f4_renewerThread_renewsASendInFlightEveryThirdOfTheLease() throws Exception {
        DeliverySettings shortLease = DispatchFixture.deliverySettings(Duration.ofMillis(600), Duration.ofMillis(300),
                Duration.ofMillis(100));
        SteppedDelivery delivery = new SteppedDelivery(fx.delivery(shortLease));
        ScheduledMessage message = fx.schedule(T0, "renew me");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fx.relay.always(fx.relay.stalled(entered, release));
        fx.start(delivery, firstSignal, DispatchFixture.dispatcherSettings(shortLease));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fx.leaseUntil(message)).isEqualTo(T0.plusMillis(600));

        fx.clock.advance(Duration.ofMillis(250));
        Await.until("the renewer thread", () -> fx.leaseUntil(message).equals(T0.plusMillis(850)));
        release.countDown();
        Await.until("publication", () -> fx.state(message).equals("published"));

        assertThat(delivery.renewCalls.get()).isPositive();
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
    }

    @Test
    void f4_relayNeverAnswers_publishBudgetEndsBeforeTheLease_thenRetriedLater() throws Exception {
        DeliverySettings shortLease = DispatchFixture.deliverySettings(Duration.ofSeconds(1), Duration.ofMillis(200),
                Duration.ofMillis(100));
        SteppedDelivery delivery = new SteppedDelivery(fx.delivery(shortLease));
        ScheduledMessage message = fx.schedule(T0, "no answer");
        fx.relay.always(fx.relay.held(new CountDownLatch(1), new CountDownLatch(1)));

        Dispatcher dispatcher = fx.start(delivery, firstSignal, DispatchFixture.dispatcherSettings(shortLease));
        Await.until("the retry", () -> fx.row(message).state() instanceof ScheduleState.Scheduled s
                && s.retryAt().isPresent());

        Receipt receipt = fx.relay.receipts().get(0);
        Instant leaseAtGate = T0.plus(shortLease.lease());
        assertThat(receipt.timeout()).isPositive().isLessThanOrEqualTo(shortLease.publishTimeout());
        assertThat(receipt.receivedAt().plus(receipt.timeout()).plus(shortLease.safetyMargin()))
                .isBeforeOrEqualTo(leaseAtGate);
        assertThat(dispatcher.counts().retried()).isEqualTo(1);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
    }

    @Test
    void f4_renewalImpossible_sendStalledPastItsDeadline_publishesNothing() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "stalled");
        AtomicLong skew = new AtomicLong();
        LongSupplier monotonic = () -> System.nanoTime() + skew.get();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        first.holdAfterGate(entered, release);
        first.failRenewals(new IllegalStateException("store unreachable (test)"));
        Dispatcher dispatcher = fx.start(first, firstSignal, settings, monotonic);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fx.state(message)).isEqualTo("sending");

        dispatcher.renewLeases();
        // Stalled past the lease less the margin (the send deadline), with no renewal to extend it.
        skew.addAndGet(deliverySettings.lease().minus(deliverySettings.safetyMargin()).plusMillis(1).toNanos());
        first.failRenewals(null);
        release.countDown();
        Await.until("the send to give up", () -> dispatcher.counts().notSent() == 1);

        assertThat(dispatcher.counts().renewalFailures()).isEqualTo(1);
        assertThat(fx.relay.receipts()).isEmpty();
        Await.until("the retry to be recorded", () -> fx.state(message).equals("scheduled"));
    }

    @Test
    void stalledAfterTheGate_relayStillGetsTheWholePublishTimeout_unlessTheLeaseDeadlineIsNearer() throws Exception {
        ScheduledMessage early = fx.schedule(T0, "stalled 5 s after the gate");
        StalledAfterTheGate stall = new StalledAfterTheGate();
        Dispatcher dispatcher = stall.start();

        // A slow pre-send step (a starved pool, a queued grouped write) must not eat the relay's time to answer:
        // that would turn an event the relay accepts into a timeout, a retry and a second send.
        stall.skew.addAndGet(Duration.ofSeconds(5).toNanos());
        stall.release.countDown();
        Await.until("the publish", () -> fx.relay.receipts().size() == 1);

        Duration untilLeaseDeadline = deliverySettings.lease().minus(deliverySettings.safetyMargin())
                .minusSeconds(5);
        assertThat(untilLeaseDeadline).isGreaterThan(deliverySettings.publishTimeout());
        assertThat(fx.relay.receipts().get(0).timeout()).isEqualTo(deliverySettings.publishTimeout());
        assertThat(fx.relay.sends(early.eventId())).isEqualTo(1);
        assertThat(dispatcher.counts().notSent()).isZero();
    }

    @Test
    void stalledAfterTheGateNearlyToTheLeaseDeadline_relayGetsOnlyWhatIsLeftOfIt() throws Exception {
        fx.schedule(T0, "stalled until 5 s before the send deadline");
        StalledAfterTheGate stall = new StalledAfterTheGate();
        stall.start();

        Duration sendDeadline = deliverySettings.lease().minus(deliverySettings.safetyMargin());
        stall.skew.addAndGet(sendDeadline.minusSeconds(5).toNanos());
        stall.release.countDown();
        Await.until("the publish", () -> fx.relay.receipts().size() == 1);

        assertThat(fx.relay.receipts().get(0).timeout()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5))
                .isLessThan(deliverySettings.publishTimeout());
    }

    /** The first dispatcher on a skewable monotonic clock, its first send held right after the gate. */
    private final class StalledAfterTheGate {
        final AtomicLong skew = new AtomicLong();
        final CountDownLatch release = new CountDownLatch(1);

        Dispatcher start() throws InterruptedException {
            CountDownLatch entered = new CountDownLatch(1);
            first.holdAfterGate(entered, release);
            Dispatcher dispatcher = fx.start(first, firstSignal, settings, () -> System.nanoTime() + skew.get());
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            return dispatcher;
        }
    }

    @Test
    void f4_claimLostWhileStalledAfterTheGate_renewerNoticesIt_firstNeverPublishes() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "taken over");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        first.holdAfterGate(entered, release);
        Dispatcher stalled = fx.start(first, firstSignal, settings);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fx.state(message)).isEqualTo("sending");

        fx.clock.set(fx.leaseUntil(message).plus(deliverySettings.reapGrace()).plusMillis(1));
        fx.start(new SteppedDelivery(fx.delivery(deliverySettings)), new RecordingSignal(), settings);
        Await.until("the other node to publish", () -> fx.state(message).equals("published"));
        stalled.renewLeases();
        release.countDown();
        Await.until("the stalled send to give up", () -> stalled.counts().notSent() == 1);

        assertThat(stalled.counts().leasesLost()).isEqualTo(1);
        assertThat(stalled.counts().sent()).isZero();
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.state(message)).isEqualTo("published");
    }

    @Test
    void f7_ownerEditsWhileTheClaimantIsPaused_editSucceeds_relayOnlyEverSeesTheNewRevision() throws Exception {
        OwnerMessagesService owner = new OwnerMessagesService(fx.store, new FakeEventSignatures(), fx.access,
                new SequentialScheduleIds(), fx.clock, DueWorkNotice.NONE, new SchedulingSettings(
                        new AdmissionRules(AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES,
                                Duration.ofDays(120)),
                        new ScheduleStore.CreateLimits(100, 30, Duration.ofMinutes(5)), Duration.ofSeconds(900)));
        NostrEvent r1 = SampleEvents.message(CHANNEL, T0.plusSeconds(60).getEpochSecond(), "first draft");
        ScheduleResult created = owner.schedule(new ScheduleMessageCommand(SampleEvents.OWNER, r1, Optional.empty()));
        ScheduledMessage message = ((ScheduleResult.Created) created).message();
        first.freezeAfterNextClaim();
        Dispatcher dispatcher = fx.start(first, firstSignal, settings);
        fx.clock.set(T0.plusSeconds(60));
        firstSignal.notifyDue(Optional.empty());
        first.awaitFrozen();
        assertThat(fx.state(message)).isEqualTo("claimed");

        NostrEvent r2 = SampleEvents.message(CHANNEL, T0.plusSeconds(120).getEpochSecond(), "second draft");
        OwnerChangeResult edit = owner.revise(new ReviseMessageCommand(SampleEvents.OWNER, message.id(), r2,
                Revision.FIRST));
        assertThat(edit).isInstanceOfSatisfying(OwnerChangeResult.Done.class,
                done -> assertThat(done.message().revision()).isEqualTo(new Revision(2)));
        first.thaw();
        Await.until("the revoked claim's pre-send step", () -> dispatcher.counts().fenceRejections() == 1);
        assertThat(fx.relay.receipts()).isEmpty();

        fx.clock.set(T0.plusSeconds(120));
        firstSignal.notifyDue(Optional.empty());
        Await.until("publication", () -> fx.state(message).equals("published"));

        List<Receipt> receipts = fx.relay.receipts();
        assertThat(receipts).extracting(r -> r.event().id()).containsExactly(r2.id());
        assertThat(fx.relay.sends(r1.id())).isZero();
        assertThat(fx.row(message).revision()).isEqualTo(new Revision(2));
        assertThat(fx.relay.early()).isEmpty();
    }
}

package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.CHANNEL;
import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.SampleEvents;
import buzz.scheduled.application.fakes.ScriptedRelayPublisher.Receipt;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.ReviseMessageUseCase.ReviseMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fences around a frame (F2, F4, F7; docs/delivery.md) now that a claim goes straight to {@code sending}: a
 * claimant paused past its lease writes nothing (its send deadline, measured on the monotonic clock from just before
 * the claim, has passed, and its fenced write changes nothing); renewals keep a slow relay's claim alive so no rival
 * can take it; a frame that waits unwritten past its deadline, or whose claim a renewal found lost, is never
 * written; and an edit made after the reaper returned a paused claim is the only revision the relay ever sees.
 *
 * <p>A pause "longer than the lease" must be one on the monotonic clock too (the dispatcher measures its deadline
 * there), so the tests that pause a claimant step the fixture's monotonic clock one nanosecond past the send deadline
 * instead of waiting for it to pass.
 */
class DispatcherFencingTest {
    /** Lease 600 ms, publish timeout 300 ms, margin 100 ms: the send deadline is 500 ms after the claim is asked. */
    private static final DeliverySettings SHORT_LEASE = DispatchFixture.deliverySettings(Duration.ofMillis(600),
            Duration.ofMillis(300), Duration.ofMillis(100));

    private final DispatchFixture fx = new DispatchFixture();
    private final DeliverySettings deliverySettings = DispatchFixture.deliverySettings();
    private final DispatcherSettings settings = DispatchFixture.dispatcherSettings(deliverySettings);
    private final DispatcherSettings shortLeaseSettings = DispatchFixture.dispatcherSettings(SHORT_LEASE);
    private final RecordingSignal firstSignal = new RecordingSignal();
    private final SteppedDeliveryStore first = fx.stepped();

    @AfterEach
    void stop() {
        first.thaw();
        first.releaseFinish();
        fx.relay.resume();
        fx.close();
    }

    /**
     * Steps the stepped monotonic clock from {@code claimedAt} (a reading taken while the claim was frozen) to one
     * nanosecond past the send deadline of that claim, which held the whole lease: the lease less the margin.
     */
    private void stepPastSendDeadline(long claimedAt, DeliverySettings delivery) {
        long deadline = claimedAt + delivery.lease().minus(delivery.safetyMargin()).toNanos();
        fx.advance(Duration.ofNanos(deadline - fx.ticks.nanoTime() + 1));
    }

    @Test
    void f2_claimantPausedLongerThanItsLease_anotherPublishes_firstWritesNothingAndChangesNothing() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "F2");
        fx.stepTime();
        first.freezeBeforeNextClaimReturns();
        Dispatcher paused = fx.start(first, firstSignal, shortLeaseSettings);
        first.awaitFrozen();
        long claimedAt = fx.ticks.nanoTime();
        assertThat(first.lastClaimAskedNanos).isEqualTo(claimedAt);
        assertThat(fx.state(message)).isEqualTo("sending");
        Instant firstLease = fx.leaseUntil(message);

        fx.clock.set(firstLease.plus(SHORT_LEASE.reapGrace()).plusMillis(1));
        Dispatcher other = fx.start(fx.stepped(), new RecordingSignal(), shortLeaseSettings);
        fx.awaitReports(message, 1);
        ScheduledMessage published = fx.row(message);
        stepPastSendDeadline(claimedAt, SHORT_LEASE);
        first.thaw();
        Poll.until("the paused claimant's outcome to come back lost", () -> paused.counts().lostAfterSend() == 1);

        assertThat(paused.counts().notSent()).isEqualTo(1);
        assertThat(paused.counts().published()).isZero();
        assertThat(fx.row(message)).isEqualTo(published);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.relay.notSent()).isEqualTo(1);
        assertThat(other.counts().published()).isEqualTo(1);
        assertThat(other.counts().reaped()).isEqualTo(1);
        assertThat(fx.relay.early()).isEmpty();
        assertThat(fx.observer.reportsOf(message.id())).singleElement()
                .satisfies(report -> assertThat(report.attempts()).isEqualTo(2));
    }


    @Test
    void f4_relaySlowerThanTheLease_renewalsKeepTheClaim_noRivalCanClaim_oneSend() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "slow relay");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // This fake relay ignores the publish timeout so the store's clock can run past the lease while the frame
        // waits for its answer.
        fx.relay.always(fx.relay.stalled(entered, release));
        Dispatcher dispatcher = fx.start(first, firstSignal, settings);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        for (int round = 0; round < 3; round++) {
            fx.clock.advance(Duration.ofSeconds(20));
            dispatcher.renewLeases();
            assertThat(fx.leaseUntil(message)).isEqualTo(fx.clock.now().plus(deliverySettings.lease()));
            // A rival node: its reaper finds nothing expired and its claim nothing claimable.
            assertThat(fx.deliveryStore.reap(deliverySettings.reapGrace())).isZero();
            assertThat(fx.deliveryStore.claim(10, deliverySettings.lease()).messages()).isEmpty();
        }
        assertThat(fx.clock.now()).isAfter(T0.plus(deliverySettings.lease()).plus(deliverySettings.reapGrace()));
        release.countDown();
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.row(message).attempts()).isEqualTo(1);
        assertThat(dispatcher.counts().leasesLost()).isZero();
        assertThat(dispatcher.counts().renewals()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void f4_finisherRenewsAClaimInFlightEveryThirdOfTheLease() throws Exception {
        DeliverySettings lease = DispatchFixture.deliverySettings(Duration.ofSeconds(3), Duration.ofSeconds(1),
                Duration.ofMillis(500));
        ScheduledMessage message = fx.schedule(T0, "renew me");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fx.relay.always(fx.relay.stalled(entered, release));
        fx.stepTime();
        Dispatcher dispatcher = fx.start(first, firstSignal, DispatchFixture.dispatcherSettings(lease));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fx.leaseUntil(message)).isEqualTo(T0.plusSeconds(3));
        assertThat(first.renewCalls).as("no renewal before a third of the lease").hasValue(0);

        fx.clock.advance(Duration.ofSeconds(1));
        fx.advance(Duration.ofSeconds(1));
        // Waking the finisher again on every look (the clock stays where it is) makes a wake-up it missed while busy
        // harmless: it re-reads the stepped clock each time.
        Poll.until("the finisher's renewal", () -> {
            fx.advance(Duration.ZERO);
            return fx.leaseUntil(message).equals(T0.plusSeconds(4));
        });
        release.countDown();
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(first.renewCalls).as("one renewal: the clock moved one third of the lease").hasValue(1);
        assertThat(dispatcher.counts().renewals()).isEqualTo(1);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
    }

    @Test
    void f4_relayNeverAnswers_itsPublishTimeoutEnds_thenRetriedLater_andPublishedOnceItAnswers() {
        ScheduledMessage message = fx.schedule(T0, "no answer");
        fx.relay.then(fx.relay.held(new CountDownLatch(1), new CountDownLatch(1)));

        Dispatcher dispatcher = fx.start(first, firstSignal, shortLeaseSettings);
        fx.awaitReports(message, 1);

        assertThat(fx.row(message).state()).isInstanceOfSatisfying(ScheduleState.Scheduled.class,
                scheduled -> assertThat(scheduled.retryAt()).isPresent());
        Receipt receipt = fx.relay.receipts().get(0);
        assertThat(receipt.timeout()).isEqualTo(SHORT_LEASE.publishTimeout());
        assertThat(dispatcher.counts().retried()).isEqualTo(1);
        assertThat(fx.observer.reportsOf(message.id())).singleElement()
                .satisfies(report -> assertThat(report.relayKind()).isEqualTo("timeout"));
        fx.moveToRetryTime(message, firstSignal);
        Poll.until("publication", () -> fx.state(message).equals("published"));
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(2);
    }

    @Test
    void sendDeadline_isWhatWasLeftOfTheLeaseLessTheMargin_fromJustBeforeTheClaim_andTheRelayGetsTheWholeTimeout() {
        ScheduledMessage message = fx.schedule(T0, "deadline");
        List<RelayPublisher.Publication> publications = new CopyOnWriteArrayList<>();
        fx.stepTime();
        long asked = fx.ticks.nanoTime();

        fx.start(first, recording(publications), firstSignal, settings);
        Poll.until("publication", () -> fx.state(message).equals("published"));

        long window = deliverySettings.lease().minus(deliverySettings.safetyMargin()).toNanos();
        assertThat(first.lastClaimAskedNanos).isEqualTo(asked);
        assertThat(publications).singleElement().satisfies(publication -> {
            assertThat(publication.sendBy()).isEqualTo(asked + window);
            assertThat(publication.timeout()).isEqualTo(deliverySettings.publishTimeout());
            assertThat(publication.eventJson()).isEqualTo(
                    NostrEventJson.write(message.event().orElseThrow()));
        });
    }

    /** The world's relay, remembering every publication handed to it. */
    private RelayPublisher recording(List<RelayPublisher.Publication> publications) {
        return new RelayPublisher() {
            @Override
            public PublishResult publish(NostrEvent event, Duration timeout) {
                return fx.relay.publish(event, timeout);
            }

            @Override
            public void publish(Publication publication, Consumer<PublishResult> answer) {
                publications.add(publication);
                fx.relay.publish(publication, answer);
            }

            @Override
            public void lookUp(Publication publication, Consumer<PublishResult> answer) {
                fx.relay.lookUp(publication, answer);
            }

            @Override
            public void resolveThenPublish(Publication publication, Consumer<PublishResult> answer) {
                fx.relay.resolveThenPublish(publication, answer);
            }

            @Override
            public int withdrawUnsent() {
                return fx.relay.withdrawUnsent();
            }
        };
    }

    @Test
    void frameWaitsUnwrittenPastItsDeadline_whileRenewalsFail_isNeverWritten_andIsRetriedLater() {
        ScheduledMessage message = fx.schedule(T0, "stalled connection");
        first.failRenewals(new IllegalStateException("store unreachable (test)"));
        fx.relay.pause();
        fx.stepTime();
        Dispatcher dispatcher = fx.start(first, firstSignal, shortLeaseSettings);
        Poll.until("the frame to wait unwritten", () -> fx.relay.waiting() == 1);
        long claimedAt = fx.ticks.nanoTime();
        assertThat(dispatcher.counts().renewalFailures()).as("no renewal before a third of the lease").isZero();
        fx.advance(SHORT_LEASE.lease().dividedBy(3));
        Poll.until("a failed renewal", () -> dispatcher.counts().renewalFailures() == 1);

        stepPastSendDeadline(claimedAt, SHORT_LEASE);
        first.failRenewals(null);
        fx.relay.resume();
        fx.awaitReports(message, 1);

        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(fx.relay.notSent()).isEqualTo(1);
        assertThat(dispatcher.counts().notSent()).isEqualTo(1);
        assertThat(fx.observer.reportsOf(message.id())).singleElement()
                .satisfies(report -> assertThat(report.relayKind()).isEqualTo("not-sent"));
        fx.moveToRetryTime(message, firstSignal);
        Poll.until("publication of the retry", () -> fx.state(message).equals("published"));
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.row(message).attempts()).isEqualTo(2);
    }

    @Test
    void f4_claimReportedLostByARenewal_itsWaitingFrameIsNeverWritten_theNewOwnerPublishesOnce() {
        ScheduledMessage message = fx.schedule(T0, "taken over");
        fx.relay.pause();
        Dispatcher stalled = fx.start(first, firstSignal, settings);
        Poll.until("the frame to wait unwritten", () -> fx.relay.waiting() == 1);
        assertThat(fx.state(message)).isEqualTo("sending");

        fx.clock.set(fx.leaseUntil(message).plus(deliverySettings.reapGrace()).plusMillis(1));
        Dispatcher other = fx.start(fx.stepped(), new RecordingSignal(), settings);
        Poll.until("the other node's frame to wait too", () -> fx.relay.waiting() == 2);
        stalled.renewLeases();
        assertThat(stalled.counts().leasesLost()).isEqualTo(1);
        fx.relay.resume();
        fx.awaitReports(message, 1);
        Poll.until("the stalled claim's outcome to come back lost", () -> stalled.counts().lostAfterSend() == 1);

        assertThat(stalled.counts().notSent()).isEqualTo(1);
        assertThat(stalled.counts().published()).isZero();
        assertThat(other.counts().published()).isEqualTo(1);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.relay.notSent()).isEqualTo(1);
        assertThat(fx.state(message)).isEqualTo("published");
    }

    @Test
    void f7_claimantPausedPastItsLease_reaped_ownerEdits_pausedClaimantWritesNothing_relayOnlySeesTheNewRevision()
            throws Exception {
        OwnerMessagesService owner = fx.owners();
        NostrEvent r1 = SampleEvents.message(CHANNEL, T0.plusSeconds(60).getEpochSecond(), "first draft");
        ScheduleResult created = owner.schedule(new ScheduleMessageCommand(SampleEvents.OWNER, r1, Optional.empty()));
        ScheduledMessage message = ((ScheduleResult.Created) created).message();
        fx.stepTime();
        first.freezeBeforeNextClaimReturns();
        Dispatcher dispatcher = fx.start(first, firstSignal, shortLeaseSettings);
        Poll.until("the dispatcher to sleep until the due time", firstSignal::sleeping);
        fx.clock.set(T0.plusSeconds(60));
        firstSignal.notifyDue(Optional.empty());
        first.awaitFrozen();
        long claimedAt = fx.ticks.nanoTime();
        assertThat(fx.state(message)).isEqualTo("sending");
        NostrEvent r2 = SampleEvents.message(CHANNEL, T0.plusSeconds(120).getEpochSecond(), "second draft");
        ReviseMessageCommand edit = new ReviseMessageCommand(SampleEvents.OWNER, message.id(), r2, Revision.FIRST);
        assertThat(owner.revise(edit)).as("an edit while the claim holds the row")
                .isInstanceOfSatisfying(OwnerChangeResult.StateConflict.class,
                        conflict -> assertThat(conflict.refusal()).isEqualTo(OwnerRefusal.DISPATCHING));

        fx.clock.set(fx.leaseUntil(message).plus(SHORT_LEASE.reapGrace()).plusMillis(1));
        assertThat(fx.deliveryStore.reap(SHORT_LEASE.reapGrace())).as("another node's reaper").isEqualTo(1);
        OwnerChangeResult edited = owner.revise(edit);
        assertThat(edited).isInstanceOfSatisfying(OwnerChangeResult.Done.class,
                done -> assertThat(done.message().revision()).isEqualTo(new Revision(2)));
        stepPastSendDeadline(claimedAt, SHORT_LEASE);
        first.thaw();
        Poll.until("the paused claim's outcome to come back lost", () -> dispatcher.counts().lostAfterSend() == 1);
        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(fx.row(message).revision()).isEqualTo(new Revision(2));
        assertThat(fx.state(message)).isEqualTo("scheduled");

        fx.clock.set(T0.plusSeconds(120));
        firstSignal.notifyDue(Optional.empty());
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(fx.relay.receipts()).extracting(r -> r.event().id()).containsExactly(r2.id());
        assertThat(fx.relay.sends(r1.id())).isZero();
        assertThat(fx.row(message).revision()).isEqualTo(new Revision(2));
        assertThat(fx.relay.early()).isEmpty();
    }
}

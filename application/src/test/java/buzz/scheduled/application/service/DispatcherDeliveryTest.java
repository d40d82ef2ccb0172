package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.ScriptedRelayPublisher;
import buzz.scheduled.application.fakes.ScriptedRelayPublisher.Receipt;
import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the dispatcher does with claimed work (docs/delivery.md): publishes it once, records the relay's answer,
 * keeps no more than its window in flight, retries transient failures with backoff until the lateness limit (F16),
 * retries a failed finishing write within the lease and leaves a longer outage to the reaper (F1, in memory), and
 * shuts down gracefully, giving back at once what was never written (F24, in memory).
 */
class DispatcherDeliveryTest {
    private final DispatchFixture fx = new DispatchFixture();
    private final RecordingSignal signal = new RecordingSignal();
    private final DeliverySettings deliverySettings = DispatchFixture.deliverySettings();
    private final SteppedDeliveryStore delivery = fx.stepped();
    private final DispatcherSettings settings = DispatchFixture.dispatcherSettings(deliverySettings);

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void dueMessage_relayAccepts_publishedOnceAtOrAfterItsDueTime() {
        ScheduledMessage message = fx.schedule(T0, "hello");

        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        // Telling the observer is the finisher's last step: once it heard, the row and the counts are settled.
        List<DeliveryObserver.DeliveryReport> reports = fx.awaitReports(message, 1);

        assertThat(fx.state(message)).isEqualTo("published");
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.relay.early()).isEmpty();
        assertThat(fx.row(message).publishedAt()).contains(T0);
        assertThat(dispatcher.counts().published()).isEqualTo(1);
        assertThat(dispatcher.counts().sent()).isEqualTo(1);
        assertThat(reports).singleElement().satisfies(report -> {
            assertThat(report.outcome()).isEqualTo(DeliveryObserver.Outcome.PUBLISHED);
            assertThat(report.relayKind()).isEqualTo("ok");
            assertThat(report.lateness()).contains(Duration.ZERO);
            assertThat(report.eventId()).isEqualTo(message.eventId());
        });
    }

    @Test
    void relayRejects_failsRelayRejected_andNeverRetries() {
        fx.relay.always(ScriptedRelayPublisher.rejected("blocked", "not a member"));
        ScheduledMessage message = fx.schedule(T0, "refused");

        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Poll.until("the failure", () -> fx.state(message).equals("failed"));
        fx.clock.advance(Duration.ofHours(1));
        int claimsBefore = delivery.claimCalls.get();
        signal.wakeUp();
        Poll.until("another pass of the claim loop", () -> delivery.claimCalls.get() > claimsBefore);

        assertThat(fx.row(message).failureReason()).contains(FailureReason.RELAY_REJECTED);
        assertThat(fx.row(message).event()).as("kept for an operator's requeue").isPresent();
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(dispatcher.counts().rejected()).isEqualTo(1);
    }

    @Test
    void moreDueThanTheWindow_holdsNoMoreThanTheWindow_andClaimsAgainOnceHalfOfItIsFree() throws Exception {
        List<ScheduledMessage> messages = IntStream.range(0, 10)
                .mapToObj(i -> fx.schedule(T0, "m" + i)).toList();
        CountDownLatch entered = new CountDownLatch(4);
        CountDownLatch release = new CountDownLatch(1);
        fx.relay.always(fx.relay.held(entered, release));

        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        assertThat(entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        assertThat(dispatcher.inFlight()).isEqualTo(4);
        assertThat(messages.stream().filter(m -> fx.state(m).equals("sending")).count()).isEqualTo(4);
        assertThat(messages.stream().filter(m -> fx.state(m).equals("scheduled")).count()).isEqualTo(6);
        // The first claim takes one message, to learn how large frames are (the window's byte cap), then the rest.
        assertThat(delivery.claimCalls.get()).as("no claim while less than half the window is free").isEqualTo(2);
        release.countDown();
        Poll.until("all published", () -> messages.stream().allMatch(m -> fx.state(m).equals("published")));

        assertThat(fx.relay.maxConcurrent()).isLessThanOrEqualTo(4);
        assertThat(messages).allSatisfy(m -> assertThat(fx.relay.sends(m.eventId())).isEqualTo(1));
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void relayDownTenMinutesAroundDueTime_retriesWithBackoff_thenPublishesWithinLateness() {
        ScheduledMessage message = fx.schedule(T0.plusSeconds(60), "through an outage");
        fx.clock.set(T0.plusSeconds(60));
        Instant relayBack = T0.plusSeconds(60 + 600);
        fx.relay.always((event, timeout) -> fx.clock.now().isBefore(relayBack)
                ? new buzz.scheduled.application.port.out.PublishResult.Transient("dropped: connection refused")
                : fx.relay.relayLike().answer(event, timeout));

        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        List<Instant> retryTimes = followRetriesUntilTerminal(message);

        assertThat(fx.state(message)).isEqualTo("published");
        List<Receipt> receipts = fx.relay.receipts();
        assertThat(receipts).hasSize(retryTimes.size() + 1);
        // Each attempt came no earlier than the retry time the previous one set.
        for (int i = 0; i < retryTimes.size(); i++) {
            assertThat(receipts.get(i + 1).receivedAt()).isAfterOrEqualTo(retryTimes.get(i));
        }
        // Equal-jitter backoff with jitter 0.5: 0.75 × min(60 s, 2 s × 2^(n-1)).
        List<Duration> gaps = new ArrayList<>();
        for (int i = 1; i < receipts.size(); i++) {
            gaps.add(Duration.between(receipts.get(i - 1).receivedAt(), receipts.get(i).receivedAt()));
        }
        assertThat(gaps.subList(0, 6)).containsExactly(Duration.ofMillis(1_500), Duration.ofSeconds(3),
                Duration.ofSeconds(6), Duration.ofSeconds(12), Duration.ofSeconds(24), Duration.ofSeconds(45));
        assertThat(gaps.subList(6, gaps.size())).allSatisfy(gap -> assertThat(gap).isEqualTo(Duration.ofSeconds(45)));
        Instant publishedAt = fx.row(message).publishedAt().orElseThrow();
        assertThat(publishedAt).isAfterOrEqualTo(relayBack)
                .isBeforeOrEqualTo(message.dueAt().plus(deliverySettings.maxLateness()));
        assertThat(receipts).allSatisfy(r -> assertThat(r.event().id()).isEqualTo(message.eventId()));
        assertThat(fx.relay.early()).isEmpty();
        assertThat(dispatcher.counts().retried()).isEqualTo(retryTimes.size());
    }

    @Test
    void relayDownPastTheLatenessLimit_failsExpired_andNothingIsSentAfterTheLimit() {
        ScheduledMessage message = fx.schedule(T0, "too late");
        fx.relay.always(ScriptedRelayPublisher.unavailable("error: relay restarting"));

        fx.start(delivery, signal, settings);
        followRetriesUntilTerminal(message);

        assertThat(fx.row(message).failureReason()).contains(FailureReason.EXPIRED);
        assertThat(fx.relay.receipts()).isNotEmpty().allSatisfy(r -> assertThat(r.receivedAt())
                .isBetween(message.dueAt(), message.dueAt().plus(deliverySettings.maxLateness())));
    }

    /**
     * Plays the store's clock forward: each time the message is back in {@code scheduled} with a retry time,
     * jumps to it and notifies; returns the retry times seen, until the message is terminal.
     */
    private List<Instant> followRetriesUntilTerminal(ScheduledMessage message) {
        List<Instant> retryTimes = new ArrayList<>();
        int attempts = 0;
        while (true) {
            int seen = attempts;
            Poll.until("attempt " + (seen + 1) + " to finish", () -> {
                ScheduledMessage row = fx.row(message);
                return row.state().terminal() || (row.attempts() > seen && row.state() instanceof ScheduleState.Scheduled);
            });
            ScheduledMessage row = fx.row(message);
            if (row.state().terminal()) {
                return retryTimes;
            }
            attempts = row.attempts();
            Instant retryAt = ((ScheduleState.Scheduled) row.state()).retryAt().orElseThrow();
            retryTimes.add(retryAt);
            assertThat(retryTimes.size()).isLessThan(100);
            // The store's clock jumps instead of running, so wake the sleeper to look again (a notification
            // naming the retry time would rightly be ignored: it is later than the backstop it sleeps toward).
            fx.clock.set(retryAt);
            signal.notifyDue(Optional.empty());
        }
    }

    @Test
    void finishingWriteFailsTwiceWhileTheDatabaseRecovers_isTriedAgainWithinTheLease_andNothingIsResent() {
        ScheduledMessage message = fx.schedule(T0, "brief outage");
        delivery.failFinishes(2);
        fx.stepTime();

        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        // Tried again after 50 ms, then after 100 ms: the backoff steps on the monotonic clock.
        Poll.until("the first failed write", () -> dispatcher.counts().writeFailures() == 1);
        assertThat(delivery.finishCalls).hasValue(1);
        fx.advance(Duration.ofMillis(50));
        Poll.until("the second failed write", () -> dispatcher.counts().writeFailures() == 2);
        assertThat(delivery.finishCalls).hasValue(2);
        fx.advance(Duration.ofMillis(100));
        Poll.until("publication, recorded and counted", () -> fx.state(message).equals("published")
                && dispatcher.counts().published() == 1);
        assertThat(delivery.finishCalls).hasValue(3);

        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(dispatcher.counts().writeFailures()).isEqualTo(2);
        assertThat(dispatcher.counts().reaped()).isZero();
        assertThat(dispatcher.counts().published()).isEqualTo(1);
        assertThat(fx.row(message).attempts()).isEqualTo(1);
    }

    @Test
    void finishingWriteFailsPastTheLease_reaperReturnsIt_resentAsDuplicate_publishedOnce() {
        ScheduledMessage message = fx.schedule(T0, "F1 in memory");
        delivery.failFinishes(Integer.MAX_VALUE);

        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Poll.until("the failed finishing write", () -> dispatcher.counts().writeFailures() >= 1);
        assertThat(fx.state(message)).isEqualTo("sending");
        fx.clock.set(fx.leaseUntil(message).plus(deliverySettings.reapGrace()).plusMillis(1));
        dispatcher.reapExpiredLeases();
        Poll.until("the second send", () -> fx.relay.sends(message.eventId()) == 2);
        delivery.failFinishes(0);
        // The row turns published inside the finishing write; the dispatcher counts it once the write returned.
        Poll.until("publication, recorded and counted", () -> fx.state(message).equals("published")
                && dispatcher.counts().published() == 1);
        Poll.until("the first claim's write to come back lost", () -> dispatcher.counts().lostAfterSend() == 1);

        List<Receipt> receipts = fx.relay.receipts();
        assertThat(receipts).hasSize(2).allSatisfy(r -> assertThat(r.event().id()).isEqualTo(message.eventId()));
        assertThat(dispatcher.counts().published()).isEqualTo(1);
        assertThat(dispatcher.counts().reaped()).isEqualTo(1);
        assertThat(fx.row(message).attempts()).isEqualTo(2);
    }

    @Test
    void stop_sendInFlight_letsItFinishWithinTheBound() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "finish me");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fx.relay.always(fx.relay.held(entered, release));
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        assertThat(entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Dispatcher.Shutdown> stopping =
                CompletableFuture.supplyAsync(() -> fx.stop(dispatcher, Duration.ofSeconds(10)));
        Poll.until("the stop request", dispatcher::stopRequested);
        Poll.until("the claim loop to end", dispatcher::claimLoopEnded);
        assertThat(stopping).isNotDone();
        assertThat(dispatcher.inFlight()).isEqualTo(1);
        release.countDown();
        Dispatcher.Shutdown shutdown = stopping.get();

        assertThat(shutdown.unfinished()).isZero();
        assertThat(shutdown.claimLoopStopped()).isTrue();
        assertThat(fx.state(message)).isEqualTo("published");
    }

    @Test
    void stop_framesNotYetWritten_areGivenBackAtOnceUnsent() {
        List<ScheduledMessage> messages = IntStream.range(0, 3).mapToObj(i -> fx.schedule(T0, "w" + i)).toList();
        fx.relay.pause();
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Poll.until("three frames waiting to be written", () -> fx.relay.waiting() == 3);

        Dispatcher.Shutdown shutdown = fx.stop(dispatcher, Duration.ofSeconds(10));

        assertThat(shutdown.withdrawn()).isEqualTo(3);
        assertThat(shutdown.released()).isEqualTo(3);
        assertThat(shutdown.unfinished()).isZero();
        assertThat(messages).allSatisfy(m -> {
            assertThat(fx.state(m)).isEqualTo("scheduled");
            assertThat(fx.row(m).token()).isEmpty();
            assertThat(fx.row(m).attempts()).isEqualTo(1);
        });
        fx.relay.resume();
        assertThat(fx.relay.receipts()).isEmpty();
    }

    @Test
    void stop_claimReturnsWhileStopping_itsMessagesAreGivenBackUnsent() throws Exception {
        List<ScheduledMessage> messages = IntStream.range(0, 3).mapToObj(i -> fx.schedule(T0, "r" + i)).toList();
        delivery.freezeBeforeNextClaimReturns();
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        delivery.awaitFrozen();

        CompletableFuture<Dispatcher.Shutdown> stopping =
                CompletableFuture.supplyAsync(() -> fx.stop(dispatcher, Duration.ofSeconds(10)));
        Poll.until("the stop request", dispatcher::stopRequested);
        delivery.thaw();
        Dispatcher.Shutdown shutdown = stopping.get();

        // The frozen claim was the first, which takes one message (it sizes the later claims by bytes).
        assertThat(shutdown.released()).isEqualTo(1);
        assertThat(shutdown.unfinished()).isZero();
        assertThat(messages).allSatisfy(m -> {
            assertThat(fx.state(m)).isEqualTo("scheduled");
            assertThat(fx.row(m).token()).isEmpty();
        });
        assertThat(messages).filteredOn(m -> fx.row(m).attempts() == 1).hasSize(1);
        assertThat(fx.relay.receipts()).isEmpty();
    }

    @Test
    void stop_sendOutlastsTheBound_isGivenBackAsAnUnknownOutcome_andTheNextClaimAsksTheRelayFirst() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "slow");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fx.relay.always(fx.relay.stalled(entered, release));
        fx.stepTime();
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        assertThat(entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Dispatcher.Shutdown> stopping =
                CompletableFuture.supplyAsync(() -> fx.stop(dispatcher, Duration.ofSeconds(1)));
        // The stop took back the unwritten frames, so its bound is running: it waits for the written one's answer.
        Poll.until("the stop to take back the unwritten frames", () -> fx.relay.withdrawals() == 1);
        fx.ticks.advance(Duration.ofSeconds(1).minusNanos(1));
        dispatcher.timeMoved();
        assertThat(stopping).as("a nanosecond before the bound ends").isNotDone();
        fx.ticks.advance(Duration.ofNanos(1));
        dispatcher.timeMoved();
        Dispatcher.Shutdown shutdown = stopping.get(10, java.util.concurrent.TimeUnit.SECONDS);
        release.countDown();

        assertThat(shutdown.unresolved()).isEqualTo(1);
        assertThat(shutdown.unfinished()).isZero();
        assertThat(shutdown.claimLoopStopped()).isTrue();
        // Given back at once (not after its lease), marked so that the next claim asks the relay before sending.
        assertThat(fx.state(message)).isEqualTo("scheduled");
        DeliveryStore.ClaimedMessage next = fx.deliveryStore.claim(1, deliverySettings.lease()).messages().getFirst();
        assertThat(next.claim().id()).isEqualTo(message.id());
        assertThat(next.earlierSend()).isEqualTo(DeliveryStore.EarlierSend.OUTCOME_UNKNOWN);
    }
}

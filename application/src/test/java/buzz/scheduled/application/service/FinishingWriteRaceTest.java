package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.DeliveryStore.FinishResult;
import buzz.scheduled.application.port.out.DeliveryStore.Written;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * F8 (docs/delivery.md): the lease expires at the very moment the finishing write commits while the reaper runs.
 * The claim put the row straight into {@code sending}; the finisher's {@code published} write (fenced by id, token
 * and revision) and the reaper's return to {@code scheduled} are both conditional, so exactly one wins and the
 * message never ends both published and scheduled.
 */
class FinishingWriteRaceTest {
    private final DeliverySettings settings = DispatchFixture.deliverySettings();

    /** Claims the only due message of {@code fx} as the dispatcher does: straight into {@code sending}. */
    private ClaimedMessage claimTheOnlyDueMessage(DispatchFixture fx) {
        List<ClaimedMessage> claimed = fx.deliveryStore.claim(1, settings.lease()).messages();
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    private static Written publish(DispatchFixture fx, ClaimedMessage claim) {
        List<FinishResult> results = fx.deliveryStore.finish(List.of(new Finish.Publish(claim.claim(),
                claim.revision())));
        assertThat(results).hasSize(1);
        return results.get(0).written();
    }

    @RepeatedTest(200)
    void f8_publishedWriteRacesTheReaperAtLeaseExpiry_exactlyOneWins() throws Exception {
        DispatchFixture fx = new DispatchFixture();
        ScheduledMessage message = fx.schedule(T0, "race");
        ClaimedMessage claim = claimTheOnlyDueMessage(fx);
        assertThat(fx.state(message)).isEqualTo("sending");
        fx.clock.set(fx.leaseUntil(message).plus(settings.reapGrace()).plusNanos(1));

        CyclicBarrier start = new CyclicBarrier(2);
        CompletableFuture<Written> publish = CompletableFuture.supplyAsync(() -> {
            await(start);
            return publish(fx, claim);
        });
        CompletableFuture<Integer> reap = CompletableFuture.supplyAsync(() -> {
            await(start);
            return fx.deliveryStore.reap(settings.reapGrace());
        });
        boolean published = publish.get() == Written.PUBLISHED;
        int reaped = reap.get();

        ScheduledMessage after = fx.row(message);
        assertThat(published ^ reaped == 1).as("exactly one write wins (published=%s, reaped=%s)", published, reaped)
                .isTrue();
        if (published) {
            assertThat(after.state()).isInstanceOf(ScheduleState.Published.class);
            assertThat(after.token()).isEmpty();
        } else {
            assertThat(publish.get()).isEqualTo(Written.LOST);
            assertThat(after.state()).isEqualTo(ScheduleState.Scheduled.NOW);
            assertThat(after.token()).isEmpty();
            assertThat(after.publishedAt()).isEmpty();
            assertThat(after.event()).isPresent();
        }
    }

    @RepeatedTest(20)
    void f8_theFinishersWriteRacesAnotherNodesReaper_exactlyOneWins_andTheLoserIsCountedLost() throws Exception {
        try (DispatchFixture fx = new DispatchFixture()) {
            ScheduledMessage message = fx.schedule(T0, "race through the dispatcher");
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch answer = new CountDownLatch(1);
            fx.relay.always(fx.relay.held(entered, answer));
            RecordingSignal signal = new RecordingSignal();
            SteppedDeliveryStore delivery = fx.stepped();
            Dispatcher dispatcher = fx.start(delivery, signal, DispatchFixture.dispatcherSettings(settings));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            // Asleep until the backstop, so a row the reaper returns stays scheduled for the assertions; and this
            // node's own reaper past its first round (made as it starts, on a thread of its own), so the other
            // node's reaper is the only one that can return the row once the lease is over.
            Poll.until("the claim loop to sleep and this node's first reaper round to end",
                    () -> signal.sleeping() && delivery.reapsDone.get() >= 1);
            fx.clock.set(fx.leaseUntil(message).plus(settings.reapGrace()).plusNanos(1));

            CyclicBarrier start = new CyclicBarrier(2);
            CompletableFuture<Void> relayAnswers = CompletableFuture.runAsync(() -> {
                await(start);
                answer.countDown();
            });
            CompletableFuture<Integer> reap = CompletableFuture.supplyAsync(() -> {
                await(start);
                return fx.deliveryStore.reap(settings.reapGrace());
            });
            relayAnswers.get();
            int reaped = reap.get();
            DispatcherCounts counts = Poll.until("the finisher's write to be answered (reaped " + reaped + ")",
                    Poll.DEFAULT_LIMIT, dispatcher::counts, seen -> seen.published() + seen.lostAfterSend() == 1);

            assertThat(counts.published() + reaped).as("exactly one write wins (%s, reaped=%s)", counts, reaped)
                    .isEqualTo(1);
            assertThat(counts.lostAfterSend()).isEqualTo(reaped);
            assertThat(counts.reaped()).as("this node's reaper returned nothing").isZero();
            assertThat(fx.state(message)).isEqualTo(reaped == 1 ? "scheduled" : "published");
            // The observer hears a recorded outcome last, after the counts.
            assertThat(fx.awaitReports(message, (int) counts.published())).hasSize((int) counts.published());
        }
    }

    @Test
    void f8_leaseEndsExactlyAtTheReapersCutoff_notYetReapable_publishedWins() {
        DispatchFixture fx = new DispatchFixture();
        ScheduledMessage message = fx.schedule(T0, "boundary");
        ClaimedMessage claim = claimTheOnlyDueMessage(fx);
        Instant boundary = fx.leaseUntil(message).plus(settings.reapGrace());
        fx.clock.set(boundary);

        assertThat(fx.deliveryStore.reap(settings.reapGrace())).isZero();
        assertThat(publish(fx, claim)).isEqualTo(Written.PUBLISHED);
        assertThat(fx.deliveryStore.reap(settings.reapGrace())).isZero();
        assertThat(fx.state(message)).isEqualTo("published");
        assertThat(fx.row(message).publishedAt()).contains(boundary);
    }

    @Test
    void f8_reaperWonFirst_laterPublishedWriteChangesNothing_andTheNextClaimHasANewToken() {
        DispatchFixture fx = new DispatchFixture();
        ScheduledMessage message = fx.schedule(T0, "reaped");
        ClaimedMessage claim = claimTheOnlyDueMessage(fx);
        fx.clock.set(fx.leaseUntil(message).plus(settings.reapGrace()).plusMillis(1));

        assertThat(fx.deliveryStore.reap(settings.reapGrace())).isEqualTo(1);
        assertThat(publish(fx, claim)).isEqualTo(Written.LOST);
        assertThat(fx.state(message)).isEqualTo("scheduled");
        ClaimedMessage again = claimTheOnlyDueMessage(fx);
        assertThat(publish(fx, claim)).as("the first claim's write, once more").isEqualTo(Written.LOST);
        assertThat(again.claim().token().value()).isGreaterThan(claim.claim().token().value());
        assertThat(publish(fx, again)).isEqualTo(Written.PUBLISHED);
        assertThat(fx.row(message).attempts()).isEqualTo(2);
    }

    @Test
    void f8_publishedWonFirst_reaperFindsNothingLaterEvenPastTheLease() {
        DispatchFixture fx = new DispatchFixture();
        ScheduledMessage message = fx.schedule(T0, "published first");
        ClaimedMessage claim = claimTheOnlyDueMessage(fx);
        Instant leaseUntil = fx.leaseUntil(message);

        assertThat(publish(fx, claim)).isEqualTo(Written.PUBLISHED);
        fx.clock.set(leaseUntil.plus(settings.reapGrace()).plusSeconds(60));
        assertThat(fx.deliveryStore.reap(settings.reapGrace())).isZero();
        assertThat(fx.state(message)).isEqualTo("published");
        assertThat(fx.deliveryStore.claim(1, settings.lease()).messages()).isEmpty();
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

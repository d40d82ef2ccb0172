package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.in.DeliveryUseCase.ClaimedWork;
import buzz.scheduled.application.port.in.DeliveryUseCase.GateResult;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * SCENARIOS F8: the lease expires at the very moment the finishing write commits while the reaper runs.
 * Both writes are conditional; exactly one wins, and the message never ends both published and scheduled.
 */
class FinishingWriteRaceTest {
    private final DeliverySettings settings = DispatchFixture.deliverySettings();

    @RepeatedTest(200)
    void f8_publishedWriteRacesTheReaperAtLeaseExpiry_exactlyOneWins() throws Exception {
        DispatchFixture fx = new DispatchFixture();
        DeliveryService delivery = fx.delivery(settings);
        ScheduledMessage message = fx.schedule(T0, "race");
        ClaimedWork work = delivery.claimDue(1).get(0);
        assertThat(delivery.startSending(work)).isInstanceOf(GateResult.Send.class);
        fx.clock.set(fx.leaseUntil(message).plus(settings.reapGrace()).plusNanos(1));

        CyclicBarrier start = new CyclicBarrier(2);
        CompletableFuture<Boolean> publish = CompletableFuture.supplyAsync(() -> {
            await(start);
            return delivery.published(work);
        });
        CompletableFuture<Integer> reap = CompletableFuture.supplyAsync(() -> {
            await(start);
            return delivery.reapExpiredLeases();
        });
        boolean published = publish.get();
        int reaped = reap.get();

        ScheduledMessage after = fx.row(message);
        assertThat(published ^ reaped == 1).as("exactly one write wins (published=%s, reaped=%s)", published, reaped)
                .isTrue();
        if (published) {
            assertThat(after.state()).isInstanceOf(ScheduleState.Published.class);
        } else {
            assertThat(after.state()).isEqualTo(ScheduleState.Scheduled.NOW);
            assertThat(after.token()).isEmpty();
            assertThat(after.publishedAt()).isEmpty();
        }
    }

    @Test
    void f8_leaseEndsExactlyNow_notYetReapable_publishedWins() {
        DispatchFixture fx = new DispatchFixture();
        DeliveryService delivery = fx.delivery(settings);
        ScheduledMessage message = fx.schedule(T0, "boundary");
        ClaimedWork work = delivery.claimDue(1).get(0);
        delivery.startSending(work);
        Instant boundary = fx.leaseUntil(message).plus(settings.reapGrace());
        fx.clock.set(boundary);

        assertThat(delivery.reapExpiredLeases()).isZero();
        assertThat(delivery.published(work)).isTrue();
        assertThat(delivery.reapExpiredLeases()).isZero();
        assertThat(fx.state(message)).isEqualTo("published");
    }

    @Test
    void f8_reaperWonFirst_laterPublishedWriteChangesNothing() {
        DispatchFixture fx = new DispatchFixture();
        DeliveryService delivery = fx.delivery(settings);
        ScheduledMessage message = fx.schedule(T0, "reaped");
        ClaimedWork work = delivery.claimDue(1).get(0);
        delivery.startSending(work);
        fx.clock.set(fx.leaseUntil(message).plus(settings.reapGrace()).plusMillis(1));

        assertThat(delivery.reapExpiredLeases()).isEqualTo(1);
        assertThat(delivery.published(work)).isFalse();
        assertThat(fx.state(message)).isEqualTo("scheduled");
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

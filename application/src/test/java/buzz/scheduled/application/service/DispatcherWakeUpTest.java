package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the dispatcher looks for work: it sleeps until the next due time on the store's clock, wakes early on
 * a notification of nearer work, otherwise only after the backstop poll, and never claims early.
 */
class DispatcherWakeUpTest {
    private final DispatchFixture fx = new DispatchFixture();
    private final RecordingSignal signal = new RecordingSignal();
    private final SteppedDelivery delivery = new SteppedDelivery(fx.delivery(DispatchFixture.deliverySettings()));
    private final DispatcherSettings settings = DispatchFixture.dispatcherSettings(DispatchFixture.deliverySettings());

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void idle_noWork_sleepsForTheWholeBackstopPollWithoutQueries() {
        fx.start(delivery, signal, settings);

        Await.until("the dispatcher to sleep", signal::sleeping);

        assertThat(signal.waits()).hasSize(1);
        assertThat(signal.waits().get(0)).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30));
        assertThat(delivery.claimCalls).hasValue(1);
        assertThat(delivery.nextDueCalls).hasValue(1);
    }

    @Test
    void futureWork_sleeps_untilItsDueTimeOnTheStoreClock() {
        fx.schedule(T0.plusSeconds(10), "later");

        fx.start(delivery, signal, settings);
        Await.until("the dispatcher to sleep", signal::sleeping);

        assertThat(signal.waits().get(0)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
        assertThat(fx.relay.receipts()).isEmpty();
    }

    @Test
    void notification_wakesTheSleeperEarly_butNothingIsClaimedBeforeItsDueTime() {
        ScheduledMessage message = fx.schedule(T0.plusSeconds(10), "hello");
        fx.start(delivery, signal, settings);
        Await.until("the first sleep", signal::sleeping);

        fx.clock.set(T0.plusSeconds(9));
        signal.notifyDue(Optional.empty());
        Await.until("the second sleep", () -> signal.waits().size() == 2 && signal.sleeping());

        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(fx.state(message)).isEqualTo("scheduled");
        assertThat(signal.waits().get(1)).isBetween(Duration.ofMillis(500), Duration.ofSeconds(1));

        fx.clock.set(T0.plusSeconds(10));
        signal.notifyDue(Optional.of(T0.plusSeconds(10)));
        Await.until("publication", () -> fx.state(message).equals("published"));

        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void notificationOfWorkNoNearer_keepsSleeping_withoutAnotherClaim() {
        fx.schedule(T0.plusSeconds(10), "nearest");
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Await.until("the first sleep", signal::sleeping);

        signal.notifyDue(Optional.of(T0.plusSeconds(20)));
        Await.until("the sleep to resume", () -> signal.waits().size() == 2 && signal.sleeping());

        assertThat(delivery.claimCalls).hasValue(1);
        assertThat(dispatcher.counts().wakeUps()).isZero();
        assertThat(signal.waits().get(1)).isLessThan(signal.waits().get(0));

        signal.notifyDue(Optional.of(T0.plusSeconds(5)));
        Await.until("a second claim", () -> delivery.claimCalls.get() == 2);
        assertThat(dispatcher.counts().wakeUps()).isEqualTo(1);
    }

    @Test
    void dueInLessThanASecond_noNotification_wakesOnItsOwnAtTheDueTime() {
        fx.clock.set(T0.minusMillis(300));
        ScheduledMessage message = fx.schedule(T0, "soon");
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Await.until("the dispatcher to sleep", signal::sleeping);
        assertThat(signal.waits().get(0)).isPositive().isLessThanOrEqualTo(Duration.ofMillis(300));

        long before = System.nanoTime();
        fx.clock.set(T0);
        Await.until("publication", Duration.ofSeconds(5), () -> fx.state(message).equals("published"));
        long tookMillis = (System.nanoTime() - before) / 1_000_000;

        assertThat(dispatcher.counts().wakeUps()).isZero();
        assertThat(tookMillis).as("woke by its own timer, long before the 30 s backstop")
                .isLessThan(5_000);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void wakingBeforeTheStoreSaysDue_reChecks_andSleepsTheRest() {
        ScheduledMessage message = fx.schedule(T0.plusSeconds(2), "exact");
        fx.start(delivery, signal, settings);
        Await.until("the first sleep", signal::sleeping);

        // A notification arrives while the store's clock is still 50 ms short of the due time.
        fx.clock.set(T0.plusSeconds(2).minusMillis(50));
        signal.notifyDue(Optional.of(T0.plusSeconds(1)));
        // The store's clock stands still in this test, so the dispatcher keeps re-checking every 50 ms.
        Await.until("the re-check's sleep", () -> signal.waits().size() >= 2);

        assertThat(fx.state(message)).isEqualTo("scheduled");
        assertThat(signal.waits().get(1)).isPositive().isLessThanOrEqualTo(Duration.ofMillis(50));
        assertThat(fx.relay.receipts()).isEmpty();
        fx.clock.set(T0.plusSeconds(2));
        Await.until("publication", () -> fx.state(message).equals("published"));
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void claimLoopStoreFailure_pausesAndRecovers_thenPublishes() {
        ScheduledMessage message = fx.schedule(T0, "after an outage");
        delivery.failClaims(3);

        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Await.until("publication", () -> fx.state(message).equals("published"));

        assertThat(dispatcher.counts().errors()).isEqualTo(3);
        assertThat(delivery.claimCalls.get()).isGreaterThanOrEqualTo(4);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
    }

    @Test
    void signalFailsWhileWaiting_claimLoopSurvives_andStillPublishes() {
        signal.failNextWaits(2);
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Await.until("the loop to sleep after the failures", signal::sleeping);

        ScheduledMessage message = fx.schedule(T0, "after a broken listener");
        signal.notifyDue(Optional.of(T0));
        Await.until("publication", () -> fx.state(message).equals("published"));

        assertThat(dispatcher.counts().errors()).isEqualTo(2);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
    }
}

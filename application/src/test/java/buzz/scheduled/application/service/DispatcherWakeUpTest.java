package buzz.scheduled.application.service;

import static buzz.scheduled.application.service.DispatchFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the dispatcher looks for work: it sleeps until the next due time on the store's clock, wakes early on
 * a notification of nearer work, otherwise only after the backstop poll, never claims early, makes no queries
 * while idle beyond the backstop's, and recovers from a failing store or listener.
 */
class DispatcherWakeUpTest {
    private final DispatchFixture fx = new DispatchFixture();
    private final RecordingSignal signal = new RecordingSignal();
    private final SteppedDeliveryStore delivery = fx.stepped();
    private final DispatcherSettings settings = DispatchFixture.dispatcherSettings(DispatchFixture.deliverySettings());

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void idle_noWork_sleepsForTheWholeBackstopPollWithoutQueries() {
        fx.start(delivery, signal, settings);

        Poll.until("the dispatcher to sleep", signal::sleeping);

        assertThat(signal.waits()).hasSize(1);
        assertThat(signal.waits().get(0)).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30));
        assertThat(delivery.claimCalls).hasValue(1);
        assertThat(delivery.nextDueCalls).hasValue(1);
    }

    @Test
    void idle_overSeveralBackstopPolls_eachPollIsOneClaimAndOneNextDueQuery_andNothingElseReachesTheStore() {
        DeliverySettings shortLease = DispatchFixture.deliverySettings(Duration.ofMillis(600), Duration.ofMillis(300),
                Duration.ofMillis(100));
        DispatcherSettings quickPoll = new DispatcherSettings(shortLease, 4, 4, DispatcherSettings.MIN_QUEUED_BYTES,
                Duration.ofSeconds(1), Duration.ofHours(1), Duration.ofMillis(50));
        fx.stepTime();
        fx.start(delivery, signal, quickPoll);
        Poll.until("the first sleep", signal::sleeping);

        // Two whole backstop polls are ten periods of the finisher's lease renewal (every 200 ms); each step wakes it.
        fx.advance(Duration.ofSeconds(1));
        Poll.until("the second sleep", () -> signal.waits().size() == 2 && signal.sleeping());
        fx.advance(Duration.ofSeconds(1));
        Poll.until("the third sleep", () -> signal.waits().size() == 3 && signal.sleeping());

        assertThat(delivery.claimCalls).hasValue(3);
        assertThat(delivery.nextDueCalls).hasValue(3);
        assertThat(delivery.renewCalls).as("nothing in flight, nothing to renew").hasValue(0);
        assertThat(delivery.finishCalls).hasValue(0);
        assertThat(signal.waits()).as("each a whole backstop poll").containsExactly(Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    @Test
    void idle_whileTheSignalDoesNotHearOtherProcesses_pollsEverySecond_andGoesBackToTheBackstopWhenItDoes() {
        signal.listening(false);
        fx.stepTime();
        fx.start(delivery, signal, settings);
        Poll.until("the first sleep", signal::sleeping);

        fx.advance(Dispatcher.DEAF_POLL);
        Poll.until("two sleeps", () -> signal.waits().size() == 2 && signal.sleeping());
        assertThat(signal.waits()).containsExactly(Dispatcher.DEAF_POLL, Dispatcher.DEAF_POLL);
        assertThat(delivery.claimCalls).as("one claim per fast poll").hasValue(2);

        signal.listening(true);
        fx.advance(Dispatcher.DEAF_POLL);
        Poll.until("a third sleep once the signal hears again", () -> signal.waits().size() == 3
                && signal.sleeping());
        assertThat(signal.waits().get(2)).as("the whole backstop poll").isEqualTo(settings.backstopPoll());
        assertThat(delivery.claimCalls).hasValue(3);
    }

    @Test
    void futureWork_sleeps_untilItsDueTimeOnTheStoreClock() {
        fx.schedule(T0.plusSeconds(10), "later");

        fx.start(delivery, signal, settings);
        Poll.until("the dispatcher to sleep", signal::sleeping);

        assertThat(signal.waits().get(0)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
        assertThat(fx.relay.receipts()).isEmpty();
    }

    @Test
    void notification_wakesTheSleeperEarly_butNothingIsClaimedBeforeItsDueTime() {
        ScheduledMessage message = fx.schedule(T0.plusSeconds(10), "hello");
        fx.stepTime();
        fx.start(delivery, signal, settings);
        Poll.until("the first sleep", signal::sleeping);

        fx.clock.set(T0.plusSeconds(9));
        signal.notifyDue(Optional.empty());
        Poll.until("the second sleep", () -> signal.waits().size() == 2 && signal.sleeping());

        assertThat(fx.relay.receipts()).isEmpty();
        assertThat(fx.state(message)).isEqualTo("scheduled");
        assertThat(signal.waits().get(1)).as("until the due time").isEqualTo(Duration.ofSeconds(1));

        // A notification of work no nearer than the wake-up time does not end the sleep; its own timer does.
        fx.clock.set(T0.plusSeconds(10));
        signal.notifyDue(Optional.of(T0.plusSeconds(10)));
        Poll.until("the sleep to resume", () -> signal.waits().size() == 3 && signal.sleeping());
        assertThat(signal.waits().get(2)).isEqualTo(Duration.ofSeconds(1));
        assertThat(delivery.claimCalls).hasValue(2);
        fx.advance(Duration.ofSeconds(1));
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void notificationOfWorkNoNearer_keepsSleeping_withoutAnotherClaim() {
        fx.schedule(T0.plusSeconds(10), "nearest");
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Poll.until("the first sleep", signal::sleeping);

        signal.notifyDue(Optional.of(T0.plusSeconds(20)));
        Poll.until("the sleep to resume", () -> signal.waits().size() == 2 && signal.sleeping());

        assertThat(delivery.claimCalls).hasValue(1);
        assertThat(dispatcher.counts().wakeUps()).isZero();
        assertThat(signal.waits().get(1)).isLessThan(signal.waits().get(0));

        signal.notifyDue(Optional.of(T0.plusSeconds(5)));
        Poll.until("a second claim", () -> delivery.claimCalls.get() == 2);
        assertThat(dispatcher.counts().wakeUps()).isEqualTo(1);
    }

    @Test
    void dueInLessThanASecond_noNotification_wakesOnItsOwnAtTheDueTime() {
        fx.clock.set(T0.minusMillis(300));
        ScheduledMessage message = fx.schedule(T0, "soon");
        fx.stepTime();
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Poll.until("the dispatcher to sleep", signal::sleeping);
        assertThat(signal.waits().get(0)).as("until the due time").isEqualTo(Duration.ofMillis(300));

        // A millisecond short of its wake-up time it sleeps the rest (again after each real millisecond, as the
        // stepped clock stands still), and claims nothing.
        fx.clock.set(T0.minusMillis(1));
        fx.advance(Duration.ofMillis(299));
        Poll.until("the sleep to resume", () -> signal.waits().size() >= 2 && signal.sleeping());
        assertThat(signal.waits().subList(1, signal.waits().size())).containsOnly(Duration.ofMillis(1));
        assertThat(delivery.claimCalls).hasValue(1);

        fx.clock.set(T0);
        fx.advance(Duration.ofMillis(1));
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(dispatcher.counts().wakeUps()).as("woke by its own timer, not by a notification").isZero();
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void wakingBeforeTheStoreSaysDue_reChecks_andSleepsTheRest() {
        ScheduledMessage message = fx.schedule(T0.plusSeconds(2), "exact");
        fx.start(delivery, signal, settings);
        Poll.until("the first sleep", signal::sleeping);

        // A notification arrives while the store's clock is still 50 ms short of the due time.
        fx.clock.set(T0.plusSeconds(2).minusMillis(50));
        signal.notifyDue(Optional.of(T0.plusSeconds(1)));
        // The store's clock stands still in this test, so the dispatcher keeps re-checking every 50 ms.
        Poll.until("the re-check's sleep", () -> signal.waits().size() >= 2);

        assertThat(fx.state(message)).isEqualTo("scheduled");
        assertThat(signal.waits().get(1)).isPositive().isLessThanOrEqualTo(Duration.ofMillis(50));
        assertThat(fx.relay.receipts()).isEmpty();
        fx.clock.set(T0.plusSeconds(2));
        Poll.until("publication", () -> fx.state(message).equals("published"));
        assertThat(fx.relay.early()).isEmpty();
    }

    @Test
    void claimLoopStoreFailure_pausesAndRecovers_thenPublishes() {
        ScheduledMessage message = fx.schedule(T0, "after an outage");
        delivery.failClaims(3);

        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(dispatcher.counts().errors()).isEqualTo(3);
        assertThat(delivery.claimCalls.get()).isGreaterThanOrEqualTo(4);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.row(message).attempts()).as("a failed claim takes nothing").isEqualTo(1);
    }

    @Test
    void renewalsFailWhileTheStoreIsDown_claimIsKept_andRenewedOnceTheStoreIsBack() throws Exception {
        ScheduledMessage message = fx.schedule(T0, "renewed after an outage");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fx.relay.always(fx.relay.stalled(entered, release));
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        delivery.failRenewals(new IllegalStateException("store unreachable (test)"));
        dispatcher.renewLeases();
        delivery.failRenewals(null);
        fx.clock.advance(Duration.ofSeconds(20));
        dispatcher.renewLeases();
        assertThat(fx.leaseUntil(message)).isEqualTo(fx.clock.now().plus(DispatchFixture.deliverySettings().lease()));
        release.countDown();
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(dispatcher.counts().renewalFailures()).isEqualTo(1);
        assertThat(dispatcher.counts().leasesLost()).isZero();
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
        assertThat(fx.row(message).attempts()).isEqualTo(1);
    }

    @Test
    void signalFailsWhileWaiting_claimLoopSurvives_andStillPublishes() {
        signal.failNextWaits(2);
        Dispatcher dispatcher = fx.start(delivery, signal, settings);
        Poll.until("the loop to sleep after the failures", signal::sleeping);

        ScheduledMessage message = fx.schedule(T0, "after a broken listener");
        signal.notifyDue(Optional.of(T0));
        Poll.until("publication", () -> fx.state(message).equals("published"));

        assertThat(dispatcher.counts().errors()).isEqualTo(2);
        assertThat(fx.relay.sends(message.eventId())).isEqualTo(1);
    }
}

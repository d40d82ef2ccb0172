package buzz.scheduled.application.support;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.DueWorkSignal.Wake;
import buzz.scheduled.application.testing.Poll;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The in-process wake-up signal: sticky notifications, the nearest time, timeouts and shutdown. */
class InProcessDueWorkSignalTest {
    private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");
    private final InProcessDueWorkSignal signal = new InProcessDueWorkSignal();

    @Test
    void notificationBeforeTheWait_isKept_andEndsTheNextWaitAtOnce() {
        signal.notifyDue(Optional.of(T));

        long before = System.nanoTime();
        Wake wake = signal.awaitWork(Duration.ofSeconds(30));

        assertThat(wake).isEqualTo(new Wake.Notified(Optional.of(T)));
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void severalNotifications_reportTheNearestTime_andAreConsumedTogether() {
        signal.notifyDue(Optional.of(T.plusSeconds(5)));
        signal.notifyDue(Optional.of(T));
        signal.notifyDue(Optional.of(T.plusSeconds(9)));

        assertThat(signal.awaitWork(Duration.ZERO)).isEqualTo(new Wake.Notified(Optional.of(T)));
        assertThat(signal.awaitWork(Duration.ZERO)).isEqualTo(new Wake.TimedOut());
    }

    @Test
    void notificationWithoutATime_makesTheNearestUnknown() {
        signal.notifyDue(Optional.of(T));
        signal.notifyDue(Optional.empty());

        assertThat(signal.awaitWork(Duration.ZERO)).isEqualTo(new Wake.Notified(Optional.empty()));
    }

    @Test
    void nothingArrives_waitsTheWholeTime_thenTimesOut() {
        long before = System.nanoTime();
        Wake wake = signal.awaitWork(Duration.ofMillis(50));

        assertThat(wake).isEqualTo(new Wake.TimedOut());
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
    }

    @Test
    void wakeUp_endsAWaitInProgress() throws Exception {
        CompletableFuture<Wake> waiting = CompletableFuture.supplyAsync(() -> signal.awaitWork(Duration.ofMinutes(1)));
        Poll.until("the waiter to start", () -> signal.hasWaiters());

        signal.wakeUp();

        assertThat(waiting.get()).isEqualTo(new Wake.Notified(Optional.empty()));
    }

    @Test
    void closed_ignoresNotifications_butWakeUpStillWorks() {
        signal.close();
        signal.notifyDue(Optional.of(T));

        assertThat(signal.awaitWork(Duration.ofMillis(10))).isEqualTo(new Wake.TimedOut());
        signal.wakeUp();
        assertThat(signal.awaitWork(Duration.ofMillis(10))).isEqualTo(new Wake.Notified(Optional.empty()));
    }

    @Test
    void absurdlyLongWait_doesNotOverflow() {
        signal.notifyDue(Optional.empty());

        assertThat(signal.awaitWork(Duration.ofSeconds(Long.MAX_VALUE))).isInstanceOf(Wake.Notified.class);
    }

    @Test
    void dueAt_fromTheOwnerSide_endsTheWaitWithThatTime_andTheSignalAlwaysListens() {
        signal.dueAt(T.plusSeconds(3));

        assertThat(signal.awaitWork(Duration.ofSeconds(30))).isEqualTo(new Wake.Notified(Optional.of(T.plusSeconds(3))));
        assertThat(signal.listening()).isTrue();
    }
}

package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.DatabaseStatus;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.Health;
import buzz.scheduled.application.port.out.DatabaseProbe;
import buzz.scheduled.application.port.out.DatabaseProbe.Reading;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The database watch with a scripted probe and a hand-set clock: reachability, the skew and the store's clock. */
class DatabaseWatchTest {
    private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");

    private final SettableClock clock = new SettableClock(T);
    private final Deque<Supplier<Reading>> script = new ArrayDeque<>();
    private final DatabaseProbe probe = () -> script.isEmpty() ? new Reading.Failed("unscripted read")
            : script.removeFirst().get();
    private final DatabaseWatch watch = new DatabaseWatch(probe, clock, DatabaseWatch.Settings.DEFAULT);

    /** A read that takes {@code roundTrip} on the clock and finds the database {@code behind} this host. */
    private Supplier<Reading> answer(Duration roundTrip, Duration behind) {
        return () -> {
            Instant start = clock.now();
            clock.advance(roundTrip);
            return new Reading.Answered(start.plus(roundTrip.dividedBy(2)).minus(behind));
        };
    }

    @Test
    void beforeTheFirstCheck_unreachable_andTheStoreClockIsThisHostsClock() {
        DatabaseStatus status = watch.databaseStatus();

        assertThat(status.reachable()).isFalse();
        assertThat(status.problem()).contains("the database has not been checked yet");
        assertThat(status.clockSkew()).isEmpty();
        assertThat(watch.now()).isEqualTo(T);
    }

    @Test
    void check_hostClockFiveMinutesAhead_measuresTheSkewAtTheRoundTripMidpoint_andNowFollowsTheDatabase() {
        script.add(answer(Duration.ofMillis(40), Duration.ofSeconds(300)));

        watch.check();

        DatabaseStatus status = watch.databaseStatus();
        assertThat(status.reachable()).isTrue();
        assertThat(status.problem()).isEmpty();
        assertThat(status.clockSkew()).contains(Duration.ofSeconds(300));
        assertThat(watch.now()).isEqualTo(clock.now().minusSeconds(300));
    }

    @Test
    void check_hostClockBehind_givesANegativeSkew() {
        script.add(answer(Duration.ofMillis(10), Duration.ofSeconds(-300)));

        watch.check();

        assertThat(watch.databaseStatus().clockSkew()).contains(Duration.ofSeconds(-300));
        assertThat(watch.now()).isEqualTo(clock.now().plusSeconds(300));
    }

    @Test
    void check_slowRoundTrips_areRepeatedOnce_andNotUsedForTheSkew() {
        script.add(answer(Duration.ofMillis(20), Duration.ofSeconds(7)));
        watch.check();
        script.add(answer(Duration.ofMillis(900), Duration.ofSeconds(60)));
        script.add(answer(Duration.ofMillis(800), Duration.ofSeconds(60)));

        watch.check();

        assertThat(script).as("the slow read was repeated").isEmpty();
        assertThat(watch.databaseStatus().reachable()).isTrue();
        assertThat(watch.databaseStatus().clockSkew()).as("still the fast read's").contains(Duration.ofSeconds(7));
    }

    @Test
    void check_failedRead_unreachableWithItsReasonSinceTheRead_untilTheNextAnswer() {
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        watch.check();
        clock.advance(Duration.ofSeconds(10));
        Instant failedAt = clock.now();
        script.add(() -> new Reading.Failed("Connection refused"));
        watch.check();
        clock.advance(Duration.ofSeconds(3));
        script.add(() -> new Reading.Failed("Connection refused"));
        watch.check();

        DatabaseStatus down = watch.databaseStatus();
        assertThat(down.health()).isEqualTo(Health.DOWN);
        assertThat(down.problem()).contains("Connection refused");
        assertThat(down.since()).isEqualTo(failedAt);
        assertThat(down.clockSkew()).as("the last measurement is kept").contains(Duration.ZERO);

        clock.advance(Duration.ofSeconds(1));
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        watch.check();

        DatabaseStatus up = watch.databaseStatus();
        assertThat(up.reachable()).isTrue();
        assertThat(up.since()).isEqualTo(clock.now());
    }

    @Test
    void status_whileAReadHangsPastTheAnswerLimit_isUnreachableWithoutWaitingForIt() throws Exception {
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        watch.check();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        script.add(() -> {
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Reading.Failed("socket timed out");
        });
        Instant hangsFrom = clock.now();
        CompletableFuture<Void> hanging = CompletableFuture.runAsync(watch::check);
        assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();

        clock.advance(Duration.ofMillis(900));
        assertThat(watch.databaseStatus().reachable()).as("within the limit").isTrue();
        clock.advance(Duration.ofMillis(600));
        DatabaseStatus status = watch.databaseStatus();

        assertThat(status.health()).as("not ready, but only slow").isEqualTo(Health.SLOW);
        assertThat(status.reachable()).isFalse();
        assertThat(status.problem()).contains("the database has not answered for 1500 ms");
        assertThat(status.since()).isEqualTo(hangsFrom);
        release.countDown();
        hanging.get(5, TimeUnit.SECONDS);
        assertThat(watch.databaseStatus().health()).isEqualTo(Health.DOWN);
        assertThat(watch.databaseStatus().problem()).contains("socket timed out");
    }

    @Test
    void status_noCheckForLong_isUnreachable() {
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        watch.check();

        clock.advance(Duration.ofSeconds(7));

        assertThat(watch.databaseStatus().health()).isEqualTo(Health.SLOW);
        assertThat(watch.databaseStatus().problem()).hasValueSatisfying(
                problem -> assertThat(problem).startsWith("the database has not been checked for"));
    }

    @Test
    void probeThatThrows_countsAsAFailedRead() {
        script.add(() -> {
            throw new IllegalStateException("driver bug");
        });

        watch.check();

        assertThat(watch.databaseStatus().problem()).hasValueSatisfying(
                problem -> assertThat(problem).contains("driver bug"));
        assertThat(watch.databaseStatus().reachable()).isFalse();
    }
}

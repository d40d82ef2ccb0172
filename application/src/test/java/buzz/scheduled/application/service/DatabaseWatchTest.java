package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.DatabaseStatus;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.Health;
import buzz.scheduled.application.port.out.DatabaseProbe;
import buzz.scheduled.application.port.out.DatabaseProbe.Reading;
import buzz.scheduled.application.testing.Poll;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The database watch with a scripted probe and a hand-set clock: reachability, read-only answers
 * (docs/failure-scenarios.md F27), the skew and the store's clock, and when it reads (docs/benchmarks.md, "Idle
 * cost").
 */
class DatabaseWatchTest {
    private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");

    private final SettableClock clock = new SettableClock(T);
    private final Deque<Supplier<Reading>> script = new ArrayDeque<>();
    private final DatabaseProbe probe = () -> script.isEmpty() ? new Reading.Failed("unscripted read")
            : script.removeFirst().get();
    private final DatabaseWatch watch = new DatabaseWatch(probe, clock, DatabaseWatch.Settings.DEFAULT);
    private final AtomicLong ticks = new AtomicLong();
    private final AtomicInteger renewals = new AtomicInteger();
    /** A watch whose pauses run on {@link #ticks} and whose probe counts session renewals. */
    private final DatabaseWatch paced = new DatabaseWatch(new DatabaseProbe() {
        @Override
        public Reading read() {
            return probe.read();
        }

        @Override
        public void renewSession() {
            renewals.incrementAndGet();
        }
    }, clock, ticks::get, DatabaseWatch.Settings.DEFAULT);

    private void tick(Duration step) {
        ticks.addAndGet(step.toNanos());
    }

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

    @Test
    void check_readOnlyAnswer_isAnOutageThatRefusesWrites_untilAnAnswerTakesWritesAgain() {
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        watch.check();
        clock.advance(Duration.ofSeconds(2));
        script.add(() -> new Reading.ReadOnly(clock.now().minusSeconds(30), "it is a hot standby"));
        watch.check();

        DatabaseStatus readOnly = watch.databaseStatus();
        assertThat(readOnly.health()).isEqualTo(Health.READ_ONLY);
        assertThat(readOnly.reachable()).as("not ready").isFalse();
        assertThat(readOnly.outage()).as("requests refused at once").isTrue();
        assertThat(readOnly.problem()).hasValueSatisfying(problem -> assertThat(problem)
                .contains("refuses writes").contains("it is a hot standby"));
        assertThat(watch.takesWrites()).as("claiming pauses").isFalse();
        assertThat(readOnly.clockSkew()).as("a read-only answer still measures the clock").contains(
                Duration.ofSeconds(30));

        clock.advance(Duration.ofSeconds(5));
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        watch.check();

        assertThat(watch.databaseStatus().health()).isEqualTo(Health.UP);
        assertThat(watch.databaseStatus().since()).isEqualTo(clock.now());
        assertThat(watch.takesWrites()).isTrue();
    }

    @Test
    void untilNextCheck_whileUp_anAnsweredStatementTakesTheNextReadsPlace() {
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        paced.check();
        assertThat(paced.untilNextCheck()).isEqualTo(Duration.ofSeconds(1));

        tick(Duration.ofMillis(600));
        paced.answered();

        assertThat(paced.untilNextCheck()).as("the read due at 1 s is taken by the statement at 0.6 s: the next one"
                + " is at 2 s, one statement a second").isEqualTo(Duration.ofMillis(1400));
        tick(Duration.ofMillis(1400));
        assertThat(paced.untilNextCheck()).isZero();
    }

    @Test
    void untilNextCheck_aBurstOfStatements_putsTheReadOffToStayAtOneASecond_butNeverPastTwoSeconds() {
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        paced.check();
        tick(Duration.ofMillis(500));
        paced.answered();
        paced.answered();
        paced.answered();

        assertThat(paced.untilNextCheck()).as("three statements and a read in half a second: the read waits, but at"
                + " most two seconds after the latest answer").isEqualTo(Duration.ofSeconds(2));
        tick(Duration.ofSeconds(2));
        assertThat(paced.untilNextCheck()).isZero();
    }

    @Test
    void untilNextCheck_inAnOutage_readsEverySecondWhateverElseIsAnswered() {
        script.add(() -> new Reading.Failed("Connection refused"));
        paced.check();
        tick(Duration.ofMillis(900));
        paced.answered();

        assertThat(paced.untilNextCheck()).as("only a read ends an outage").isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void recheck_readsAtOnceOnANewSession() {
        script.add(answer(Duration.ofMillis(5), Duration.ZERO));
        paced.check();
        assertThat(paced.untilNextCheck()).isPositive();

        paced.recheck();

        assertThat(paced.untilNextCheck()).isZero();
        assertThat(renewals).as("the probe was told to use a new session").hasValue(1);
        script.add(() -> new Reading.ReadOnly(clock.now(), "default_transaction_read_only is on"));
        paced.check();
        assertThat(paced.databaseStatus().health()).isEqualTo(Health.READ_ONLY);
        assertThat(paced.untilNextCheck()).as("the recheck was done").isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void runInCheckSlots_theStatementRunsInsteadOfReadsWhileUp_andAFailedOneIsFollowedByARead() throws Exception {
        DatabaseWatch.Settings fast = new DatabaseWatch.Settings(Duration.ofMillis(20), Duration.ofSeconds(1),
                Duration.ofMillis(250), Duration.ofSeconds(5));
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger statements = new AtomicInteger();
        AtomicInteger failing = new AtomicInteger();
        AtomicReference<Reading> next = new AtomicReference<>(new Reading.Answered(T));
        DatabaseWatch timed = new DatabaseWatch(() -> {
            reads.incrementAndGet();
            return next.get();
        }, clock, fast);
        try (timed) {
            timed.check();
            assertThat(timed.runInCheckSlots(Duration.ofMillis(60), () -> {
                statements.incrementAndGet();
                if (failing.get() > 0) {
                    failing.decrementAndGet();
                    return false;
                }
                timed.answered();
                return true;
            })).isTrue();
            timed.start();
            Poll.until("the statement in three slots",
                    () -> statements.get() >= 3);
            int readsBefore = reads.get();
            failing.set(1);
            int statementsBefore = statements.get();
            Poll.until("the failed statement and the read after it",
                    () -> statements.get() > statementsBefore && reads.get() > readsBefore);

            next.set(new Reading.ReadOnly(T, "it is a hot standby"));
            Poll.until("the read-only state",
                    () -> timed.databaseStatus().health() == Health.READ_ONLY);
            int statementsInOutage = statements.get();
            int readsInOutage = reads.get();
            Poll.until("reads during the outage",
                    () -> reads.get() >= readsInOutage + 5);

            assertThat(statements.get()).as("no statement in the slots while the database refuses writes")
                    .isEqualTo(statementsInOutage);
        }
    }
}

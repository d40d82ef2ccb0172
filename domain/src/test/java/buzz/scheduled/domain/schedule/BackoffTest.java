package buzz.scheduled.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Exponential backoff with equal jitter (docs/delivery.md): delay in [d/2, d) with d = min(cap, base·2^(n-1)). */
class BackoffTest {

    private static final Duration BASE = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofSeconds(60);
    private static final double ALMOST_ONE = Math.nextDown(1.0);

    private static Backoff withJitter(double u) {
        return new Backoff(BASE, CAP, () -> u);
    }

    @ParameterizedTest(name = "attempt {0} → {1} ms")
    @CsvSource({"1, 500", "2, 1000", "3, 2000", "4, 4000", "5, 8000", "6, 16000", "7, 30000", "8, 30000",
            "41, 30000", "100, 30000", "2147483647, 30000"})
    void delay_withJitterZero_isHalfOfTheDoublingCappedDelay(int attempt, long millis) {
        assertThat(withJitter(0.0).delay(attempt)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest(name = "attempt {0} → {1} ms")
    @CsvSource({"1, 999", "2, 1999", "6, 31999", "7, 59999", "1000, 59999"})
    void delay_withJitterJustBelowOne_isJustBelowTheFullDelay(int attempt, long millis) {
        assertThat(withJitter(ALMOST_ONE).delay(attempt)).isEqualTo(Duration.ofMillis(millis));
    }

    @Test
    void delay_withJitterHalf_isThreeQuartersOfTheFullDelay() {
        assertThat(withJitter(0.5).delay(1)).isEqualTo(Duration.ofMillis(750));
        assertThat(withJitter(0.5).delay(10)).isEqualTo(Duration.ofMillis(45_000));
    }

    @Test
    void delay_everyAttemptAndJitter_staysWithinEqualJitterBounds() {
        double[] jitters = {0.0, 0.1, 0.25, 0.5, 0.75, 0.9, ALMOST_ONE};
        for (int attempt = 1; attempt <= 64; attempt++) {
            long full = Math.min(CAP.toMillis(), BASE.toMillis() << Math.min(attempt - 1, 20));
            long previous = -1;
            for (double u : jitters) {
                long delay = withJitter(u).delay(attempt).toMillis();
                assertThat(delay).as("attempt %d jitter %s", attempt, u).isBetween(full / 2, full - 1);
                assertThat(delay).as("grows with jitter").isGreaterThanOrEqualTo(previous);
                previous = delay;
            }
        }
    }

    @Test
    void delay_never_decreasesWithTheAttempt() {
        Backoff backoff = withJitter(0.0);

        long[] delays = IntStream.rangeClosed(1, 80).mapToLong(n -> backoff.delay(n).toMillis()).toArray();

        assertThat(delays).isSorted();
        assertThat(delays[delays.length - 1]).isEqualTo(CAP.toMillis() / 2);
    }

    @Test
    void delay_withBaseThatWouldOverflowWhenDoubled_staysAtTheCap() {
        Duration huge = Duration.ofDays(100_000);
        Backoff backoff = new Backoff(huge, huge, () -> 0.0);

        assertThat(backoff.delay(64)).isEqualTo(huge.dividedBy(2));
        assertThat(backoff.delay(Integer.MAX_VALUE)).isEqualTo(huge.dividedBy(2));
    }

    @Test
    void delay_eachCall_drawsJitterOnce() {
        AtomicInteger draws = new AtomicInteger();
        double[] values = {0.0, ALMOST_ONE};
        DoubleSupplier jitter = () -> values[draws.getAndIncrement() % 2];
        Backoff backoff = new Backoff(BASE, CAP, jitter);

        Duration first = backoff.delay(1);
        Duration second = backoff.delay(1);

        assertThat(draws).hasValue(2);
        assertThat(first).isEqualTo(Duration.ofMillis(500));
        assertThat(second).isEqualTo(Duration.ofMillis(999));
    }

    @Test
    void delay_withBaseEqualToCap_isConstantUpToJitter() {
        Backoff backoff = new Backoff(CAP, CAP, () -> 0.0);

        assertThat(backoff.delay(1)).isEqualTo(backoff.delay(30)).isEqualTo(Duration.ofSeconds(30));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void delay_attemptBelowOne_namesTheAttempt(int attempt) {
        assertThatThrownBy(() -> withJitter(0.0).delay(attempt))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got " + attempt);
    }

    @ParameterizedTest
    @ValueSource(doubles = {1.0, -0.001, 1.5, Double.NaN, Double.POSITIVE_INFINITY})
    void delay_jitterOutsideZeroToOne_namesTheValue(double u) {
        assertThatThrownBy(() -> withJitter(u).delay(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got " + u);
    }

    @Test
    void construct_withBaseNotPositive_namesIt() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, CAP, () -> 0.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S");
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(-1), CAP, () -> 0.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
    }

    @Test
    void construct_withCapBelowBase_namesBoth() {
        assertThatThrownBy(() -> new Backoff(CAP, BASE, () -> 0.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT1M").hasMessageContaining("PT1S");
    }

    @Test
    void construct_withBaseBelowOneMillisecond_isRejected() {
        // Delays are whole milliseconds: such a base would make every retry immediate.
        assertThatThrownBy(() -> new Backoff(Duration.ofNanos(999_999), CAP, () -> 0.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0.000999999S");
    }

    @Test
    void construct_withOneMillisecondBase_doubles() {
        Backoff backoff = new Backoff(Duration.ofMillis(1), CAP, () -> 0.0);

        assertThat(backoff.delay(1)).isEqualTo(Duration.ZERO);
        assertThat(backoff.delay(11)).isEqualTo(Duration.ofMillis(512));
    }

    @Test
    void construct_withAPartMissing_isRejected() {
        assertThatThrownBy(() -> new Backoff(null, CAP, () -> 0.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoff needs a base delay");
        assertThatThrownBy(() -> new Backoff(BASE, null, () -> 0.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoff needs a cap");
        assertThatThrownBy(() -> new Backoff(BASE, CAP, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoff needs a jitter source");
    }
}

package buzz.scheduled.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The lateness limit (docs/delivery.md "The hot path"): strictly more than {@code maxLateness} after the due time. */
class LatenessTest {

    private static final Instant DUE = Instant.ofEpochSecond(1_900_000_000L);
    private static final Duration LIMIT = Duration.ofSeconds(900);

    @Test
    void expired_exactlyAtTheLimit_isFalse() {
        assertThat(Lateness.expired(DUE, LIMIT, DUE.plus(LIMIT))).isFalse();
    }

    @Test
    void expired_oneNanosecondPastTheLimit_isTrue() {
        assertThat(Lateness.expired(DUE, LIMIT, DUE.plus(LIMIT).plusNanos(1))).isTrue();
    }

    @Test
    void expired_beforeOrAtTheDueTime_isFalse() {
        assertThat(Lateness.expired(DUE, LIMIT, DUE)).isFalse();
        assertThat(Lateness.expired(DUE, LIMIT, DUE.minusSeconds(3600))).isFalse();
    }

    @Test
    void expired_withZeroLimit_isTrueRightAfterTheDueTime() {
        assertThat(Lateness.expired(DUE, Duration.ZERO, DUE)).isFalse();
        assertThat(Lateness.expired(DUE, Duration.ZERO, DUE.plusNanos(1))).isTrue();
    }
}

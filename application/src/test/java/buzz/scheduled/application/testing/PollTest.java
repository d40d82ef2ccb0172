package buzz.scheduled.application.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PollTest {

    @Test
    void until_conditionHoldsOnTheFifthCheck_returnsAfterExactlyFiveChecks() {
        AtomicInteger checks = new AtomicInteger();

        Poll.until("the fifth check", Duration.ofSeconds(5), () -> checks.incrementAndGet() == 5);

        assertThat(checks).hasValue(5);
    }

    @Test
    void until_conditionNeverHolds_failsNamingWhatWasAwaitedAfterTheLimit() {
        long started = System.nanoTime();

        assertThatThrownBy(() -> Poll.until("a condition that never holds", Duration.ofMillis(200), () -> false))
                .isInstanceOf(AssertionError.class)
                .hasMessage("timed out after PT0.2S waiting for a condition that never holds");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(200),
                Duration.ofSeconds(5));
    }

    @Test
    void until_value_returnsTheFirstValueAccepted() {
        AtomicInteger reads = new AtomicInteger();

        int value = Poll.until("three", Duration.ofSeconds(5), reads::incrementAndGet, n -> n >= 3);

        assertThat(value).isEqualTo(3);
    }

    @Test
    void until_valueNeverAccepted_failsWithTheLastValueRead() {
        assertThatThrownBy(() -> Poll.until("a state", Duration.ofMillis(100), () -> "sending",
                state -> state.equals("published")))
                .isInstanceOf(AssertionError.class)
                .hasMessage("timed out after PT0.1S waiting for a state; last: sending");
    }

    @Test
    void until_readThrowsACheckedException_failsAtOnceWithItAsTheCause() {
        IOException refused = new IOException("connection refused");

        assertThatThrownBy(() -> Poll.until("an answer", Duration.ofSeconds(30), () -> {
            throw refused;
        }, answer -> true))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("could not check an answer")
                .hasCause(refused);
    }

    @Test
    void until_readThrowsARuntimeException_passesItOn() {
        IllegalStateException exited = new IllegalStateException("the process exited");

        assertThatThrownBy(() -> Poll.until("an answer", Duration.ofSeconds(30), () -> {
            throw exited;
        }, answer -> true)).isSameAs(exited);
    }
}

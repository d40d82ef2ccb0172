package buzz.scheduled.benchmarks.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.benchmarks.dispatch.LoopbackRelay.Receipt;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArrivalsTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void of_everyIdOnTimeOnce_isCompleteWithItsLateness() {
        Arrivals arrivals = Arrivals.of(Map.of("a", 100L, "b", 101L),
                Map.of("a", new Receipt(100 * SECOND + 5_000_000, 1), "b", new Receipt(101 * SECOND + 70_000_000, 1)));

        assertThat(arrivals.complete()).isTrue();
        assertThat(arrivals.received()).isEqualTo(2);
        assertThat(arrivals.missing()).isZero();
        assertThat(arrivals.latenessNanos()).containsExactlyInAnyOrder(5_000_000L, 70_000_000L);
        assertThat(arrivals.lastArrival()).isEqualTo(101 * SECOND + 70_000_000);
    }

    @Test
    void of_arrivalBeforeItsDueSecond_countsAsEarlyAndIncomplete() {
        Arrivals arrivals = Arrivals.of(Map.of("a", 100L), Map.of("a", new Receipt(100 * SECOND - 1, 1)));

        assertThat(arrivals.early()).isEqualTo(1);
        assertThat(arrivals.latenessNanos()).containsExactly(-1L);
        assertThat(arrivals.complete()).isFalse();
    }

    @Test
    void of_arrivalAtExactlyItsDueSecond_isNotEarly() {
        Arrivals arrivals = Arrivals.of(Map.of("a", 100L), Map.of("a", new Receipt(100 * SECOND, 1)));

        assertThat(arrivals.early()).isZero();
        assertThat(arrivals.complete()).isTrue();
    }

    @Test
    void of_missingStrayAndRepeatedIds_areCountedApart() {
        Arrivals arrivals = Arrivals.of(Map.of("a", 100L, "b", 100L, "c", 100L),
                Map.of("a", new Receipt(101 * SECOND, 3), "x", new Receipt(101 * SECOND, 2)));

        assertThat(arrivals.received()).isEqualTo(1);
        assertThat(arrivals.missing()).isEqualTo(2);
        assertThat(arrivals.strays()).isEqualTo(1);
        assertThat(arrivals.duplicates()).isEqualTo(3);
        assertThat(arrivals.latenessNanos()).containsExactly(SECOND);
        assertThat(arrivals.complete()).isFalse();
    }

    @Test
    void of_nothingArrived_hasNoSamples() {
        Arrivals arrivals = Arrivals.of(Map.of("a", 100L), Map.of());

        assertThat(arrivals.received()).isZero();
        assertThat(arrivals.latenessNanos()).isEmpty();
        assertThat(arrivals.lastArrival()).isZero();
        assertThat(arrivals.complete()).isFalse();
    }

    @Test
    void worstSeconds_nameTheSecondsWhoseLastMessageCameLatest_worstFirst_withOffsetsFromTheFirstDueSecond() {
        List<Arrivals.LateSecond> worst = Arrivals.worstSeconds(
                Map.of("a", 100L, "b", 100L, "c", 101L, "d", 102L, "e", 102L),
                Map.of("a", new Receipt(100 * SECOND + 5_000_000, 1), "b", new Receipt(100 * SECOND + 9_000_000, 1),
                        "c", new Receipt(101 * SECOND + 160_000_000, 1), "d", new Receipt(102 * SECOND + 1_000_000, 1)),
                2);

        assertThat(worst).containsExactly(new Arrivals.LateSecond(1, 1, 160_000_000),
                new Arrivals.LateSecond(0, 2, 9_000_000));
    }
}

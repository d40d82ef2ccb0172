package buzz.scheduled.benchmarks.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class LatencySummaryTest {

    @Test
    void of_thousandSamplesOneToThousand_givesNearestRankPercentiles() {
        long[] samples = LongStream.rangeClosed(1, 1000).map(i -> 1001 - i).toArray();

        LatencySummary summary = LatencySummary.of(samples, 1000);

        assertThat(summary.p50()).isEqualTo(500);
        assertThat(summary.p90()).isEqualTo(900);
        assertThat(summary.p99()).isEqualTo(990);
        assertThat(summary.p999()).isEqualTo(999);
        assertThat(summary.max()).isEqualTo(1000);
        assertThat(summary.mean()).isEqualTo(500.5);
    }

    @Test
    void of_onlyFirstCountSamples_ignoresTheRestAndLeavesTheArrayAlone() {
        long[] samples = {30, 10, 20, 999_999, 999_999};

        LatencySummary summary = LatencySummary.of(samples, 3);

        assertThat(summary.count()).isEqualTo(3);
        assertThat(summary.p50()).isEqualTo(20);
        assertThat(summary.p999()).isEqualTo(30);
        assertThat(summary.max()).isEqualTo(30);
        assertThat(samples).containsExactly(30, 10, 20, 999_999, 999_999);
    }

    @Test
    void of_hundredSamplesWithOneOutlier_p99IsBelowTheOutlierAndMaxIsIt() {
        long[] samples = new long[100];
        java.util.Arrays.fill(samples, 5);
        samples[42] = 7_000;

        LatencySummary summary = LatencySummary.of(samples, 100);

        assertThat(summary.p99()).isEqualTo(5);
        assertThat(summary.p999()).isEqualTo(7_000);
        assertThat(summary.max()).isEqualTo(7_000);
    }

    @Test
    void of_noSamples_isRefused() {
        assertThatThrownBy(() -> LatencySummary.of(new long[3], 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 0");
    }
}

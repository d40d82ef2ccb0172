package buzz.scheduled.benchmarks.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The batch benchmark's options: its warm-up defaults, and warm-ups of nothing or less. */
class BatchesThroughServeOptionsTest {

    @Test
    void defaults_warmUpTwoHundredBatchesAndFiveThousandSingles() {
        BatchesThroughServe.Options options = BatchesThroughServe.Options.parse(new String[0]);

        assertThat(options.batches()).isEqualTo(300);
        assertThat(options.warmUpBatches()).isEqualTo(200);
        assertThat(options.warmUpSingles()).isEqualTo(5_000);
    }

    @Test
    void noWarmUp_isAccepted_andANegativeOneIsRefused() {
        BatchesThroughServe.Options none = BatchesThroughServe.Options.parse(
                new String[] {"--warmup-batches", "0", "--warmup-singles", "0"});

        assertThat(none.warmUpBatches()).isZero();
        assertThat(none.warmUpSingles()).isZero();
        assertThatThrownBy(() -> BatchesThroughServe.Options.parse(new String[] {"--warmup-batches", "-1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--warmup-batches");
    }
}

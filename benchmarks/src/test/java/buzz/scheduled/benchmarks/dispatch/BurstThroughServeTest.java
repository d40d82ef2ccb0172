package buzz.scheduled.benchmarks.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * docs/failure-scenarios.md F12 through the whole sidecar of {@code serve} on its embedded PostgreSQL: 10 000 messages
 * from 1 000 owners due in the same second are all published, none before its second, none twice. How fast is printed,
 * not asserted; the wait is only a bound on a broken run.
 */
class BurstThroughServeTest {

    @Test
    void tenThousandMessagesFromAThousandOwnersDueInOneSecond_allPublishedOnceAndNoneEarly() throws Exception {
        BurstThroughServe.Result result = BurstThroughServe.run(10_000, 1_000, Duration.ofSeconds(60));

        System.out.println(result.row());
        assertThat(result.received()).as("distinct events at the relay").isEqualTo(10_000);
        assertThat(result.duplicates()).as("frames sent twice").isZero();
        assertThat(result.early()).as("events before their due second").isZero();
        assertThat(result.published()).as("rows the database records published").isEqualTo(10_000);
    }
}

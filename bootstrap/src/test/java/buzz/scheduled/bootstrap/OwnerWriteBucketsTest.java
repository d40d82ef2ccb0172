package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The per-owner token buckets on a clock the test moves. */
class OwnerWriteBucketsTest {
    private static final PublicKey ALICE = new PublicKey("a".repeat(64));
    private static final PublicKey BOB = new PublicKey("b".repeat(64));

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    @Test
    void tryWrite_burstUsedUp_refusesWithTheWaitForOneRefill_andAnotherOwnerIsUnaffected() {
        OwnerWriteBuckets buckets = new OwnerWriteBuckets(60, 3, 100, nanos::get);

        for (int i = 0; i < 3; i++) {
            assertThat(buckets.tryWrite(ALICE)).as("write " + i).isEmpty();
        }
        Optional<Duration> wait = buckets.tryWrite(ALICE);

        assertThat(wait).isPresent();
        assertThat(wait.get()).isBetween(Duration.ofMillis(990), Duration.ofSeconds(1));
        assertThat(buckets.tryWrite(BOB)).isEmpty();
    }

    @Test
    void tryWrite_afterTheWait_allowsOneMore_thenRefusesAgain() {
        OwnerWriteBuckets buckets = new OwnerWriteBuckets(60, 1, 100, nanos::get);
        assertThat(buckets.tryWrite(ALICE)).isEmpty();
        Duration wait = buckets.tryWrite(ALICE).orElseThrow();

        advance(wait);

        assertThat(buckets.tryWrite(ALICE)).isEmpty();
        assertThat(buckets.tryWrite(ALICE)).isPresent();
    }

    @Test
    void tryWrite_sustained_allowsThePerMinuteRateOverAMinute() {
        OwnerWriteBuckets buckets = new OwnerWriteBuckets(60, 10, 100, nanos::get);
        int allowed = 0;
        for (int ms = 0; ms < 60_000; ms += 100) {
            if (buckets.tryWrite(ALICE).isEmpty()) {
                allowed++;
            }
            advance(Duration.ofMillis(100));
        }

        // The burst of 10 at once, then one a second for the rest of the minute.
        assertThat(allowed).isBetween(69, 70);
    }

    @Test
    void trackedOwners_neverExceedsTheBound_andIdleFullBucketsAreDropped() {
        OwnerWriteBuckets buckets = new OwnerWriteBuckets(60, 30, 50, nanos::get);
        for (int i = 0; i < 500; i++) {
            buckets.tryWrite(new PublicKey(String.format("%064x", i)));
        }
        assertThat(buckets.trackedOwners()).isLessThanOrEqualTo(50);

        advance(Duration.ofSeconds(31)); // 30 writes at 60 a minute refill in 30 s
        assertThat(buckets.trackedOwners()).isZero();
    }

    @Test
    void constructor_nonPositiveCounts_areRefused() {
        assertThatThrownBy(() -> new OwnerWriteBuckets(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OwnerWriteBuckets(1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OwnerWriteBuckets(1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}

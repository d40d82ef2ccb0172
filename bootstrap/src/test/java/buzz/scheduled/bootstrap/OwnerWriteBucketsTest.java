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

        // Kept until even the deepest debt a batch can leave (100 writes) has refilled at 60 a minute: 100 s.
        advance(Duration.ofSeconds(99));
        assertThat(buckets.trackedOwners()).isPositive();
        advance(Duration.ofSeconds(2));
        assertThat(buckets.trackedOwners()).isZero();
    }

    @Test
    void tryWrites_aBatchWithinTheBurst_takesAllOrNothing() {
        OwnerWriteBuckets buckets = new OwnerWriteBuckets(60, 30, 100, nanos::get);
        assertThat(buckets.tryWrites(ALICE, 20)).isEmpty();

        Optional<Duration> wait = buckets.tryWrites(ALICE, 12);

        assertThat(wait).as("10 left, 12 asked: refused whole, with the wait for two more").hasValueSatisfying(
                duration -> assertThat(duration).isBetween(Duration.ofMillis(1_990), Duration.ofSeconds(2)));
        assertThat(buckets.tryWrites(ALICE, 10)).as("the refused batch took nothing").isEmpty();
        assertThat(buckets.tryWrite(ALICE)).isPresent();
    }

    @Test
    void tryWrites_aBatchLargerThanTheBurst_passesFromAFullBucketAndItsDebtDelaysTheNextWrite() {
        OwnerWriteBuckets buckets = new OwnerWriteBuckets(60, 30, 100, nanos::get);
        assertThat(buckets.tryWrite(ALICE)).isEmpty();

        Optional<Duration> notFull = buckets.tryWrites(ALICE, 100);
        advance(Duration.ofSeconds(1));
        Optional<Duration> full = buckets.tryWrites(ALICE, 100);
        Duration debt = buckets.tryWrite(ALICE).orElseThrow();

        assertThat(notFull).as("29 of 30: wait for the bucket to be full").hasValueSatisfying(
                duration -> assertThat(duration).isBetween(Duration.ofMillis(990), Duration.ofSeconds(1)));
        assertThat(full).as("a full bucket lets the 100 through").isEmpty();
        assertThat(debt).as("70 owed, then one more: 71 s at one a second").isBetween(Duration.ofSeconds(70),
                Duration.ofSeconds(71));
        advance(debt);
        assertThat(buckets.tryWrite(ALICE)).isEmpty();
    }

    @Test
    void constructor_nonPositiveCounts_areRefused() {
        assertThatThrownBy(() -> new OwnerWriteBuckets(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OwnerWriteBuckets(1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OwnerWriteBuckets(1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}

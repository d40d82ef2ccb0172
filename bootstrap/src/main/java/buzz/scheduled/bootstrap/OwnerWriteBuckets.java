package buzz.scheduled.bootstrap;

import buzz.scheduled.application.port.in.ScheduleBatchUseCase;
import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.domain.nostr.PublicKey;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The production {@link OwnerWriteLimiter}: one Bucket4j token bucket per owner pubkey, in this node's memory
 * (docs/scheduled-messages.md §4). A bucket holds up to {@code burst} writes and refills {@code perMinute} a minute,
 * continuously; a write takes one, and with none left the answer is how long until the next one. A batch of n events
 * takes n at once or none; a batch larger than the burst is let through only from a full bucket and leaves it in debt
 * (Bucket4j's {@code consumeIgnoringRateLimits}), which the refill pays back before the owner's next write.
 *
 * <p>The buckets live in a Caffeine cache bounded to {@code maxOwners} entries. A bucket left alone for as long as
 * it takes to refill completely from the deepest debt a batch can leave is dropped (it would be full again anyway,
 * so dropping it changes nothing); past
 * {@code maxOwners} owners at once the least recently used go first, and such an owner starts again with a full
 * bucket. Each node counts on its own: behind a load balancer over N nodes an owner gets up to N times the rate.
 */
public final class OwnerWriteBuckets implements OwnerWriteLimiter {
    /** Default bound on the owners one node tracks at once: 100 000 (a few hundred bytes each). */
    public static final int DEFAULT_MAX_OWNERS = 100_000;

    private final Cache<String, Bucket> buckets;
    private final Bandwidth bandwidth;
    private final int burst;
    private final TimeMeter time;

    /**
     * Buckets on the system's monotonic clock ({@link System#nanoTime()}).
     *
     * @param perMinute writes an owner regains a minute (at least 1)
     * @param burst     writes an owner may make at once after a quiet spell (at least 1)
     * @param maxOwners owners tracked at once on this node (at least 1)
     */
    public OwnerWriteBuckets(int perMinute, int burst, int maxOwners) {
        this(perMinute, burst, maxOwners, System::nanoTime);
    }

    /**
     * @param nanoTime a monotonic clock in nanoseconds (tests pass one they move by hand)
     * @throws IllegalArgumentException when a count is below 1
     */
    OwnerWriteBuckets(int perMinute, int burst, int maxOwners, LongSupplier nanoTime) {
        if (perMinute < 1 || burst < 1 || maxOwners < 1) {
            throw new IllegalArgumentException("write rate, burst and tracked owners must be positive, got "
                    + perMinute + ", " + burst + " and " + maxOwners);
        }
        this.burst = burst;
        this.bandwidth = Bandwidth.builder().capacity(burst).refillGreedy(perMinute, Duration.ofMinutes(1)).build();
        this.time = new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                return nanoTime.getAsLong();
            }

            @Override
            public boolean isWallClockBased() {
                return false;
            }
        };
        // From the deepest debt a batch can leave (its events beyond the burst) back to a full bucket.
        long deepest = Math.max(burst, ScheduleBatchUseCase.MAX_EVENTS);
        Duration fullRefill = Duration.ofNanos(Math.ceilDiv(Duration.ofMinutes(1).toNanos() * deepest, perMinute));
        this.buckets = Caffeine.newBuilder()
                .maximumSize(maxOwners)
                .expireAfterAccess(fullRefill)
                .ticker(nanoTime::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    @Override
    public Optional<Duration> tryWrites(PublicKey owner, int writes) {
        if (writes < 1) {
            throw new IllegalArgumentException("a write takes at least one token, got " + writes);
        }
        Bucket bucket = buckets.get(owner.hex(), key -> Bucket.builder().addLimit(bandwidth)
                .withCustomTimePrecision(time).build());
        // What the bucket must hold: the whole batch, or all it can ever hold for a batch larger than that.
        int covered = Math.min(writes, burst);
        ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(covered);
        if (!probe.isConsumed()) {
            return Optional.of(Duration.ofNanos(Math.max(1, probe.getNanosToWaitForRefill())));
        }
        if (writes > covered) {
            bucket.consumeIgnoringRateLimits(writes - covered);
        }
        return Optional.empty();
    }

    /** Owners tracked now (approximate while Caffeine catches up on evictions). */
    long trackedOwners() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }
}

package buzz.scheduled.bootstrap;

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
 * continuously; a write takes one, and with none left the answer is how long until the next one.
 *
 * <p>The buckets live in a Caffeine cache bounded to {@code maxOwners} entries. A bucket left alone for as long as
 * it takes to refill completely is dropped (it would be full again anyway, so dropping it changes nothing); past
 * {@code maxOwners} owners at once the least recently used go first, and such an owner starts again with a full
 * bucket. Each node counts on its own: behind a load balancer over N nodes an owner gets up to N times the rate.
 */
public final class OwnerWriteBuckets implements OwnerWriteLimiter {
    /** Default bound on the owners one node tracks at once: 100 000 (a few hundred bytes each). */
    public static final int DEFAULT_MAX_OWNERS = 100_000;

    private final Cache<String, Bucket> buckets;
    private final Bandwidth bandwidth;
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
        Duration fullRefill = Duration.ofNanos(Math.ceilDiv(Duration.ofMinutes(1).toNanos() * burst, perMinute));
        this.buckets = Caffeine.newBuilder()
                .maximumSize(maxOwners)
                .expireAfterAccess(fullRefill)
                .ticker(nanoTime::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    @Override
    public Optional<Duration> tryWrite(PublicKey owner) {
        Bucket bucket = buckets.get(owner.hex(), key -> Bucket.builder().addLimit(bandwidth)
                .withCustomTimePrecision(time).build());
        ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
        return probe.isConsumed() ? Optional.empty()
                : Optional.of(Duration.ofNanos(Math.max(1, probe.getNanosToWaitForRefill())));
    }

    /** Owners tracked now (approximate while Caffeine catches up on evictions). */
    long trackedOwners() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }
}

package buzz.scheduled.application.service;

import java.time.Duration;

/**
 * How the {@link Dispatcher} runs. The delivery timing comes from {@link DeliverySettings}, whose constructor
 * refuses a lease shorter than the publish timeout plus its margin: there is no way to build a
 * dispatcher around a configuration that could let a send outlive its lease.
 *
 * @param delivery       lease, publish timeout, margins, lateness and backoff
 * @param maxInFlight    the window: most claims held at once by this dispatcher, i.e. frames waiting for the
 *                       relay's answer (1..10 000); a claim is made when at least half of it is free
 * @param claimBatch     most claims taken in one claim statement (1..{@code maxInFlight})
 * @param maxQueuedBytes most bytes of event frames held in flight at once; no claim is made while they are
 *                       reached (at least 64 KiB)
 * @param backstopPoll longest sleep when no notification arrives (the slow poll behind LISTEN/NOTIFY)
 * @param reapEvery    how often the reaper returns expired leases to {@code scheduled}
 * @param errorPause   how long the claim loop waits after the store failed before it tries again
 */
public record DispatcherSettings(DeliverySettings delivery, int maxInFlight, int claimBatch, long maxQueuedBytes,
                                 Duration backstopPoll, Duration reapEvery, Duration errorPause) {

    /** Most concurrent sends allowed. */
    public static final int MAX_IN_FLIGHT = 10_000;
    /** The default window: frames in flight on the relay connection. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 1_000;
    /** The default largest claim. */
    public static final int DEFAULT_CLAIM_BATCH = 500;
    /** The default cap on bytes of frames in flight (16 MiB). */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 16L << 20;
    /** The smallest cap on bytes in flight accepted: one frame of the largest event admission takes must fit. */
    public static final long MIN_QUEUED_BYTES = 64L << 10;

    public DispatcherSettings {
        if (delivery == null) {
            throw new IllegalArgumentException("dispatcher settings need delivery settings");
        }
        if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT) {
            throw new IllegalArgumentException("max in-flight sends must be 1.." + MAX_IN_FLIGHT + ", got " + maxInFlight);
        }
        if (claimBatch < 1 || claimBatch > maxInFlight) {
            throw new IllegalArgumentException("claim batch must be 1..max in-flight (" + maxInFlight + "), got "
                    + claimBatch);
        }
        if (maxQueuedBytes < MIN_QUEUED_BYTES) {
            throw new IllegalArgumentException("max queued bytes must be at least " + MIN_QUEUED_BYTES + ", got "
                    + maxQueuedBytes);
        }
        requirePositive("backstop poll", backstopPoll);
        requirePositive("reap period", reapEvery);
        requirePositive("error pause", errorPause);
        if (delivery.lease().dividedBy(3).isZero()) {
            throw new IllegalArgumentException("lease " + delivery.lease().toNanos() + " ns is too short to renew");
        }
    }

    /**
     * Defaults for production: a window of {@value #DEFAULT_MAX_IN_FLIGHT} frames, claims of up to
     * {@value #DEFAULT_CLAIM_BATCH}, 16 MiB in flight, a 30 s backstop poll, a reaper every 5 s and a 1 s pause after
     * a store error.
     */
    public static DispatcherSettings defaults(DeliverySettings delivery) {
        return new DispatcherSettings(delivery, DEFAULT_MAX_IN_FLIGHT, DEFAULT_CLAIM_BATCH, DEFAULT_MAX_QUEUED_BYTES,
                Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(1));
    }

    /** The fewest free places in the window worth a claim: half of it. */
    public int claimWhenFree() {
        return Math.max(1, maxInFlight / 2);
    }

    /** How often in-flight leases are renewed: a third of the lease (docs/delivery.md "The hot path", step 5). */
    public Duration renewEvery() {
        return delivery.lease().dividedBy(3);
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}

package buzz.scheduled.application.service;

import java.time.Duration;

/**
 * How the {@link Dispatcher} runs. The delivery timing comes from {@link DeliverySettings}, whose constructor
 * refuses a lease shorter than the publish timeout plus its margin (SCENARIOS F5): there is no way to build a
 * dispatcher around a configuration that could let a send outlive its lease.
 *
 * @param delivery     lease, publish timeout, margins, lateness and backoff (the same value the
 *                     {@link DeliveryService} was built with)
 * @param maxInFlight  most claims held at once by this dispatcher, i.e. concurrent sends (1..10 000)
 * @param claimBatch   most claims taken in one claim transaction (1..{@code maxInFlight})
 * @param backstopPoll longest sleep when no notification arrives (the slow poll behind LISTEN/NOTIFY)
 * @param reapEvery    how often the reaper returns expired leases to {@code scheduled}
 * @param errorPause   how long the claim loop waits after the store failed before it tries again
 */
public record DispatcherSettings(DeliverySettings delivery, int maxInFlight, int claimBatch, Duration backstopPoll,
                                 Duration reapEvery, Duration errorPause) {

    /** Most concurrent sends allowed. */
    public static final int MAX_IN_FLIGHT = 10_000;

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
        requirePositive("backstop poll", backstopPoll);
        requirePositive("reap period", reapEvery);
        requirePositive("error pause", errorPause);
        if (delivery.lease().dividedBy(3).isZero()) {
            throw new IllegalArgumentException("lease " + delivery.lease().toNanos() + " ns is too short to renew");
        }
    }

    /**
     * Defaults for production: 32 sends in flight, claims of 32, a 30 s backstop poll, a reaper every 5 s
     * and a 1 s pause after a store error.
     */
    public static DispatcherSettings defaults(DeliverySettings delivery) {
        return new DispatcherSettings(delivery, 32, 32, Duration.ofSeconds(30), Duration.ofSeconds(5),
                Duration.ofSeconds(1));
    }

    /** How often in-flight leases are renewed: a third of the lease (DELIVERY.md step 2). */
    public Duration renewEvery() {
        return delivery.lease().dividedBy(3);
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}

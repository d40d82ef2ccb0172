package buzz.scheduled.application.service;

import buzz.scheduled.domain.schedule.Backoff;
import java.time.Duration;

/**
 * Timing of delivery (docs/delivery.md).
 *
 * @param lease          how long a claim is held before it can be reaped unless renewed
 * @param publishTimeout longest wait for the relay's {@code OK}
 * @param safetyMargin   lease time kept in reserve beyond the publish timeout; the pre-send step refuses
 *                       to start when less than {@code publishTimeout + safetyMargin} of the lease is left
 * @param reapGrace      how long after a lease ends the reaper waits before taking the row back
 * @param maxLateness    past due by more than this, a message fails {@code expired}
 * @param backoff        delays between retries after transient relay answers
 */
public record DeliverySettings(Duration lease, Duration publishTimeout, Duration safetyMargin, Duration reapGrace,
                               Duration maxLateness, Backoff backoff) {
    public DeliverySettings {
        if (lease == null || publishTimeout == null || safetyMargin == null || reapGrace == null
                || maxLateness == null || backoff == null) {
            throw new IllegalArgumentException("delivery settings have a missing value");
        }
        if (lease.compareTo(publishTimeout.plus(safetyMargin)) < 0) {
            throw new IllegalArgumentException("lease " + lease.toMillis() + " ms is shorter than the publish timeout "
                    + publishTimeout.toMillis() + " ms plus the safety margin " + safetyMargin.toMillis() + " ms");
        }
    }

    /** The least lease that must remain for the pre-send step to let a send start. */
    public Duration minLeaseLeft() {
        return publishTimeout.plus(safetyMargin);
    }
}

package buzz.scheduled.bootstrap.config;

import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_CLAIM_BATCH_SIZE;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_LEASE_MARGIN_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_LEASE_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_MAX_IN_FLIGHT;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_POLL_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_PUBLISH_TIMEOUT_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_REAP_GRACE_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_RETENTION_DAYS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_RETRY_BASE_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_RETRY_MAX_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_SHUTDOWN_GRACE_SECONDS;

import buzz.scheduled.bootstrap.config.SidecarConfig.Delivery;
import java.time.Duration;

/**
 * Reads the delivery timing (docs/delivery.md), with the checks that tie its values together. Part of
 * {@link SidecarConfig#fromEnvironment}.
 */
final class DeliveryConfigReader {
    private DeliveryConfigReader() {
    }

    /** Delivery timing (docs/delivery.md): lease, publish timeout, margins, retries, window, poll, grace, retention. */
    static Delivery delivery(EnvironmentReader env) {
        Duration lease = env.seconds(BUZZ_LEASE_SECONDS, 60, 1, 3_600);
        Duration publishTimeout = env.seconds(BUZZ_PUBLISH_TIMEOUT_SECONDS, 10, 1, 600);
        Duration margin = env.seconds(BUZZ_LEASE_MARGIN_SECONDS, 5, 0, 600);
        if (lease.compareTo(publishTimeout.plus(margin)) <= 0) {
            throw new InvalidConfigurationException(BUZZ_LEASE_SECONDS, BUZZ_LEASE_SECONDS + " (" + lease.toSeconds()
                    + ") must be longer than " + BUZZ_PUBLISH_TIMEOUT_SECONDS + " (" + publishTimeout.toSeconds()
                    + ") plus " + BUZZ_LEASE_MARGIN_SECONDS + " (" + margin.toSeconds()
                    + "): a claim must outlive the longest wait for the relay");
        }
        Duration retryBase = env.seconds(BUZZ_RETRY_BASE_SECONDS, 2, 1, 3_600);
        Duration retryMax = env.seconds(BUZZ_RETRY_MAX_SECONDS, 120, 1, 86_400);
        if (retryMax.compareTo(retryBase) < 0) {
            throw new InvalidConfigurationException(BUZZ_RETRY_MAX_SECONDS, BUZZ_RETRY_MAX_SECONDS + " ("
                    + retryMax.toSeconds() + ") must not be below " + BUZZ_RETRY_BASE_SECONDS + " ("
                    + retryBase.toSeconds() + ")");
        }
        int maxInFlight = (int) env.integer(BUZZ_MAX_IN_FLIGHT, 1_000, 1, 10_000, "frames");
        int claimBatch = (int) env.integer(BUZZ_CLAIM_BATCH_SIZE, Math.min(500, maxInFlight), 1, 10_000, "messages");
        if (claimBatch > maxInFlight) {
            throw new InvalidConfigurationException(BUZZ_CLAIM_BATCH_SIZE, BUZZ_CLAIM_BATCH_SIZE + " (" + claimBatch
                    + ") must not exceed " + BUZZ_MAX_IN_FLIGHT + " (" + maxInFlight + ")");
        }
        return new Delivery(lease, publishTimeout, margin,
                env.seconds(BUZZ_REAP_GRACE_SECONDS, 10, 0, 3_600),
                retryBase, retryMax, claimBatch, maxInFlight,
                env.seconds(BUZZ_POLL_SECONDS, 30, 1, 3_600),
                env.seconds(BUZZ_SHUTDOWN_GRACE_SECONDS, 15, 0, 600),
                Duration.ofDays(env.integer(BUZZ_RETENTION_DAYS, 7, 1, 3650, "days")));
    }
}

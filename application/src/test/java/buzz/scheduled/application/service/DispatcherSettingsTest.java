package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.schedule.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * docs/failure-scenarios.md F5 and the dispatcher's own limits: bad configuration stops start-up with a precise
 * message.
 */
class DispatcherSettingsTest {
    private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(60), () -> 0.5);

    private static DeliverySettings delivery(Duration lease, Duration publishTimeout, Duration margin) {
        return new DeliverySettings(lease, publishTimeout, margin, Duration.ofSeconds(5), Duration.ofSeconds(900),
                BACKOFF);
    }

    @Test
    void f5_leaseShorterThanThePublishTimeout_refused_namingBothValues() {
        assertThatThrownBy(() -> DispatcherSettings.defaults(
                delivery(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease 5000 ms")
                .hasMessageContaining("publish timeout 10000 ms");
    }

    @Test
    void f5_leaseCoversTheTimeoutButNotTheMargin_refused() {
        assertThatThrownBy(() -> delivery(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease 10000 ms")
                .hasMessageContaining("publish timeout 10000 ms")
                .hasMessageContaining("safety margin 2000 ms");
    }

    @Test
    void leaseCoveringTimeoutAndMargin_accepted_renewingEveryThirdOfTheLease() {
        DispatcherSettings settings = DispatcherSettings.defaults(
                delivery(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(2)));

        assertThat(settings.renewEvery()).isEqualTo(Duration.ofSeconds(10));
        assertThat(settings.delivery().minLeaseLeft()).isEqualTo(Duration.ofSeconds(12));
        assertThat(settings.backstopPoll()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void noDeliverySettings_refused() {
        assertThatThrownBy(() -> new DispatcherSettings(null, 1, 1, DispatcherSettings.MIN_QUEUED_BYTES, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delivery settings");
    }

    @Test
    void claimBatchLargerThanTheSendSlots_refused() {
        DeliverySettings delivery = delivery(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(2));

        assertThatThrownBy(() -> new DispatcherSettings(delivery, 4, 5, DispatcherSettings.MIN_QUEUED_BYTES, Duration.ofSeconds(30), Duration.ofSeconds(5),
                Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("claim batch must be 1..max in-flight (4), got 5");
    }

    @Test
    void zeroSendSlots_refused() {
        DeliverySettings delivery = delivery(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(2));

        assertThatThrownBy(() -> new DispatcherSettings(delivery, 0, 1, DispatcherSettings.MIN_QUEUED_BYTES, Duration.ofSeconds(30), Duration.ofSeconds(5),
                Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max in-flight sends must be 1..10000, got 0");
    }

    @Test
    void queuedBytesBelowOneLargeFrame_refused() {
        DeliverySettings delivery = delivery(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(2));

        assertThatThrownBy(() -> new DispatcherSettings(delivery, 4, 4, 1024, Duration.ofSeconds(30),
                Duration.ofSeconds(5), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max queued bytes must be at least 65536, got 1024");
    }

    @Test
    void defaults_windowOfAThousandClaimingWhenHalfIsFree() {
        DispatcherSettings settings = DispatcherSettings.defaults(
                delivery(Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(5)));

        assertThat(settings.maxInFlight()).isEqualTo(1_000);
        assertThat(settings.claimBatch()).isEqualTo(500);
        assertThat(settings.claimWhenFree()).isEqualTo(500);
        assertThat(settings.maxQueuedBytes()).isEqualTo(16L << 20);
    }

    @Test
    void zeroBackstopPoll_refused() {
        DeliverySettings delivery = delivery(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(2));

        assertThatThrownBy(() -> new DispatcherSettings(delivery, 4, 4, DispatcherSettings.MIN_QUEUED_BYTES, Duration.ZERO, Duration.ofSeconds(5),
                Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backstop poll must be positive, got PT0S");
    }
}

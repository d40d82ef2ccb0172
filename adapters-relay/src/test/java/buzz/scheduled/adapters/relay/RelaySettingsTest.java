package buzz.scheduled.adapters.relay;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RelaySettingsTest {
    private static final URI URL = URI.create("ws://127.0.0.1:7777");

    private static RelaySettings settings(Duration initial, Duration max) {
        return new RelaySettings(URL, Duration.ofSeconds(5), initial, max);
    }

    @Test
    void reconnectDelay_doublesPerFailureWithinEqualJitter() {
        RelaySettings settings = settings(Duration.ofMillis(100), Duration.ofSeconds(30));

        assertThat(settings.reconnectDelay(0, 0.0)).isEqualTo(Duration.ofMillis(50));
        assertThat(settings.reconnectDelay(0, 0.999999)).isBetween(Duration.ofMillis(99), Duration.ofMillis(100));
        assertThat(settings.reconnectDelay(3, 0.0)).isEqualTo(Duration.ofMillis(400));
        assertThat(settings.reconnectDelay(3, 0.5)).isEqualTo(Duration.ofMillis(600));
    }

    @Test
    void reconnectDelay_manyFailures_isCappedAtMaxBackoff() {
        RelaySettings settings = settings(Duration.ofMillis(100), Duration.ofSeconds(2));

        assertThat(settings.reconnectDelay(1_000, 0.0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.reconnectDelay(Integer.MAX_VALUE, 0.999999)).isLessThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void reconnectDelay_negativeFailures_isRefused() {
        assertThatThrownBy(() -> settings(Duration.ofMillis(100), Duration.ofSeconds(2)).reconnectDelay(-1, 0.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("failedAttempts must not be negative, got -1");
    }

    @Test
    void construct_httpUrl_isRefusedNamingTheUrl() {
        assertThatThrownBy(() -> RelaySettings.of(URI.create("http://127.0.0.1:7777")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("relay url must start with ws:// or wss://, got http://127.0.0.1:7777");
    }

    @Test
    void construct_initialLongerThanMax_isRefusedNamingBoth() {
        assertThatThrownBy(() -> settings(Duration.ofSeconds(5), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initialBackoff PT5S is longer than maxBackoff PT1S");
    }

    @Test
    void construct_zeroConnectTimeout_isRefused() {
        assertThatThrownBy(() -> new RelaySettings(URL, Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connectTimeout must be positive, got PT0S");
    }

    @Test
    void of_defaults_areUsable() {
        RelaySettings settings = RelaySettings.of(URI.create("wss://relay.example.com"));

        assertThat(settings.connectTimeout()).isEqualTo(RelaySettings.DEFAULT_CONNECT_TIMEOUT);
        assertThat(settings.maxBackoff()).isEqualTo(RelaySettings.DEFAULT_MAX_BACKOFF);
    }
}

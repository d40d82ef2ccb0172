package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.Signature;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReplayCacheTest {
    private static final Instant T0 = Instant.ofEpochSecond(1_767_225_600L);

    private static Signature signature(int n) {
        return new Signature(String.format("%0128x", n));
    }

    @Test
    void firstUse_sameSignatureWithinRetention_isRefusedTheSecondTime() {
        ReplayCache cache = new ReplayCache(Duration.ofSeconds(120), 10);

        assertThat(cache.firstUse(signature(1), T0)).isTrue();
        assertThat(cache.firstUse(signature(1), T0.plusSeconds(119))).isFalse();
    }

    @Test
    void firstUse_afterRetention_forgetsTheSignature() {
        ReplayCache cache = new ReplayCache(Duration.ofSeconds(120), 10);
        cache.firstUse(signature(1), T0);

        assertThat(cache.firstUse(signature(2), T0.plusSeconds(120))).isTrue();
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void firstUse_overCapacity_forgetsTheOldestOnly() {
        ReplayCache cache = new ReplayCache(Duration.ofSeconds(120), 2);
        cache.firstUse(signature(1), T0);
        cache.firstUse(signature(2), T0.plusSeconds(1));

        cache.firstUse(signature(3), T0.plusSeconds(2));

        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.firstUse(signature(3), T0.plusSeconds(3))).isFalse();
        assertThat(cache.firstUse(signature(1), T0.plusSeconds(3))).isTrue();
    }
}

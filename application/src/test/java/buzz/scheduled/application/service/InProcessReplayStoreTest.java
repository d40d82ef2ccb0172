package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.Signature;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class InProcessReplayStoreTest {
    private static final Instant T0 = Instant.ofEpochSecond(1_767_225_600L);

    private final AtomicReference<Instant> now = new AtomicReference<>(T0);

    private static Signature signature(int n) {
        return new Signature(String.format("%0128x", n));
    }

    @Test
    void firstUse_sameSignatureBeforeItsKeepUntil_isRefusedTheSecondTime() {
        InProcessReplayStore store = new InProcessReplayStore(10, now::get);

        assertThat(store.firstUse(signature(1), T0.plusSeconds(121))).isTrue();
        now.set(T0.plusSeconds(120));
        assertThat(store.firstUse(signature(1), T0.plusSeconds(240))).isFalse();
    }

    @Test
    void firstUse_afterKeepUntil_forgetsTheSignature() {
        InProcessReplayStore store = new InProcessReplayStore(10, now::get);
        store.firstUse(signature(1), T0.plusSeconds(121));

        now.set(T0.plusSeconds(121));
        assertThat(store.firstUse(signature(2), T0.plusSeconds(300))).isTrue();
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.firstUse(signature(1), T0.plusSeconds(300))).isTrue();
    }

    @Test
    void firstUse_overCapacity_forgetsTheSoonestToExpireOnly() {
        InProcessReplayStore store = new InProcessReplayStore(2, now::get);
        store.firstUse(signature(1), T0.plusSeconds(200));
        store.firstUse(signature(2), T0.plusSeconds(100));

        store.firstUse(signature(3), T0.plusSeconds(150));

        assertThat(store.size()).isEqualTo(2);
        assertThat(store.firstUse(signature(3), T0.plusSeconds(150))).isFalse();
        assertThat(store.firstUse(signature(1), T0.plusSeconds(200))).isFalse();
        assertThat(store.firstUse(signature(2), T0.plusSeconds(100))).isTrue();
    }
}

package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.Signature;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ReplayStore} must have, run against the in-process store (application tests) and
 * PostgreSQL (adapters-postgres). Times are the real clock's: each store compares {@code keepUntil} with its own.
 */
public abstract class ReplayStoreContract {
    private static int next = 1;

    protected ReplayStore store;

    /** A store that remembers nothing yet. */
    protected abstract ReplayStore emptyStore();

    @BeforeEach
    void setUp() {
        store = emptyStore();
    }

    /** A signature no other test of this run uses. */
    protected static synchronized Signature freshSignature() {
        return new Signature(String.format("%0128x", System.nanoTime() * 1000 + next++));
    }

    @Test
    void firstUse_sameSignatureTwice_isFirstThenReplay() {
        Signature signature = freshSignature();
        Instant keepUntil = Instant.now().plusSeconds(180);

        assertThat(store.firstUse(signature, keepUntil)).isTrue();
        assertThat(store.firstUse(signature, keepUntil)).isFalse();
        assertThat(store.firstUse(signature, keepUntil.plusSeconds(60))).isFalse();
    }

    @Test
    void firstUse_otherSignatures_areIndependent() {
        Instant keepUntil = Instant.now().plusSeconds(180);

        assertThat(store.firstUse(freshSignature(), keepUntil)).isTrue();
        assertThat(store.firstUse(freshSignature(), keepUntil)).isTrue();
    }

    @Test
    void firstUse_entryWhoseKeepUntilHasPassed_isFirstUseAgain() {
        Signature signature = freshSignature();

        assertThat(store.firstUse(signature, Instant.now().minusSeconds(1))).isTrue();
        assertThat(store.firstUse(signature, Instant.now().plusSeconds(180))).isTrue();
        assertThat(store.firstUse(signature, Instant.now().plusSeconds(180))).isFalse();
    }

    @Test
    void firstUse_raceOnOneSignature_hasExactlyOneWinner() throws Exception {
        Signature signature = freshSignature();
        Instant keepUntil = Instant.now().plusSeconds(180);
        int racers = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(racers)) {
            for (int i = 0; i < racers; i++) {
                Callable<Boolean> racer = () -> {
                    start.await();
                    return store.firstUse(signature, keepUntil);
                };
                results.add(threads.submit(racer));
            }
            start.countDown();
            int winners = 0;
            for (Future<Boolean> result : results) {
                winners += result.get() ? 1 : 0;
            }
            assertThat(winners).isEqualTo(1);
        }
    }
}

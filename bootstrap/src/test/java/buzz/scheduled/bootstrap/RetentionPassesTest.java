package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.application.testing.Poll;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetentionPassesTest {

    @Test
    void passes_firstOneFails_laterPassesStillRun() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch threePasses = new CountDownLatch(3);
        try (RetentionPasses passes = new RetentionPasses(() -> {
            int call = calls.incrementAndGet();
            threePasses.countDown();
            if (call == 1) {
                throw new IllegalStateException("the database did not answer");
            }
            return 2;
        }, Duration.ZERO, Duration.ofMillis(20))) {
            passes.start();

            assertThat(threePasses.await(10, TimeUnit.SECONDS)).as("three passes despite the failed first").isTrue();
        }
        assertThat(calls.get()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void close_duringAPass_waitsForThatPassToFinish() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        AtomicBoolean finishedWhenCloseReturned = new AtomicBoolean();
        RetentionPasses passes = new RetentionPasses(() -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished.set(true);
            return 0;
        }, Duration.ZERO, Duration.ofMinutes(10));
        passes.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        Thread closing = Thread.ofPlatform().start(() -> {
            passes.close();
            finishedWhenCloseReturned.set(finished.get());
        });
        Poll.until("close() to wait for the pass", Duration.ofSeconds(10),
                () -> closing.getState() == Thread.State.TIMED_WAITING);
        assertThat(closing.getState()).as("close() waits while the pass runs").isEqualTo(Thread.State.TIMED_WAITING);
        release.countDown();
        closing.join(Duration.ofSeconds(10));

        assertThat(closing.isAlive()).isFalse();
        assertThat(finishedWhenCloseReturned).isTrue();
    }

    @Test
    void constructor_nonPositiveInterval_isRefused() {
        assertThatThrownBy(() -> new RetentionPasses(() -> 0, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive interval");
    }
}

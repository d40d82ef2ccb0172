package buzz.scheduled.application.service;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes (no fixed sleeps standing in for synchronization). */
final class Await {
    static final Duration DEFAULT = Duration.ofSeconds(10);

    private Await() {
    }

    /** Waits up to {@link #DEFAULT} for {@code condition}. */
    static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT, condition);
    }

    /** Waits up to {@code limit} for {@code condition}. */
    static void until(String what, Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + limit + " waiting for " + what);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}

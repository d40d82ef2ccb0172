package buzz.scheduled.bootstrap;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the Nostr-native background passes (docs/nostr.md) on one daemon thread each: the notice sender and the front
 * door's final answers, each pass starting {@code every} after the previous one ended, so passes of one kind never
 * overlap. A failed pass is logged at WARN (the database may be down) and the next runs as planned. Every node runs
 * them; the stores' leases keep nodes off each other's work.
 */
final class NostrPasses implements AutoCloseable {
    /** How long {@link #close()} waits for a running pass. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(NostrPasses.class);

    private final ScheduledExecutorService timer;
    private final String name;

    /**
     * @param name  the thread's name and the log lines' subject
     * @param pass  one pass; returns how much it did (logged at DEBUG when not zero)
     * @param every pause between passes, &gt; 0
     */
    NostrPasses(String name, IntSupplier pass, Duration every) {
        if (name == null || pass == null || every == null || every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("passes need a name, a pass and a positive interval");
        }
        this.name = name;
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(name).factory());
        timer.scheduleWithFixedDelay(() -> {
            try {
                int done = pass.getAsInt();
                if (done > 0) {
                    LOG.debug("{}: {}", name, done);
                }
            } catch (RuntimeException e) {
                LOG.warn("{} pass failed, next in {} ms: {}", name, every.toMillis(), e.toString());
            }
        }, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdown();
        try {
            if (!timer.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("a {} pass was still running after {} s; interrupting it", name, CLOSE_WAIT.toSeconds());
                timer.shutdownNow();
            }
        } catch (InterruptedException e) {
            timer.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}

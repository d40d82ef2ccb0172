package buzz.scheduled.bootstrap;

import buzz.scheduled.application.port.in.PruneRetentionUseCase;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs retention pruning (docs/scheduled-messages.md §6: terminal messages older than {@code BUZZ_RETENTION_DAYS}, in
 * small batches) on one daemon thread: a first pass shortly after start, then one pass {@code every} after the previous
 * one ended, so passes never overlap. A failed pass is logged and the next one runs as planned. Every node runs it;
 * the batched deletes skip rows another node holds, so concurrent passes are harmless.
 */
final class RetentionPasses implements AutoCloseable {

    /** Delay before the first pass after start. */
    static final Duration FIRST_PASS_AFTER = Duration.ofSeconds(15);
    /** Pause between the end of one pass and the start of the next. */
    static final Duration EVERY = Duration.ofMinutes(10);
    /** How long {@link #close()} waits for a running pass to finish its batch. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(RetentionPasses.class);

    private final PruneRetentionUseCase retention;
    private final Duration firstPassAfter;
    private final Duration every;
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("buzz-retention").factory());

    /**
     * @param retention      one pruning pass
     * @param firstPassAfter delay before the first pass, ≥ 0
     * @param every          pause between passes, &gt; 0
     */
    RetentionPasses(PruneRetentionUseCase retention, Duration firstPassAfter, Duration every) {
        if (retention == null || firstPassAfter == null || firstPassAfter.isNegative() || every == null
                || every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("retention passes need a use case, a first delay >= 0 and a positive"
                    + " interval, got " + firstPassAfter + " and " + every);
        }
        this.retention = retention;
        this.firstPassAfter = firstPassAfter;
        this.every = every;
    }

    /** Plans the passes and returns at once. */
    void start() {
        timer.scheduleWithFixedDelay(this::pass, firstPassAfter.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void pass() {
        try {
            int pruned = retention.prune();
            if (pruned > 0) {
                LOG.info("retention pruned {} terminal message(s)", pruned);
            }
        } catch (RuntimeException e) {
            // Thrown out of a periodic task, it would cancel every later pass.
            LOG.warn("retention pass failed, next pass in {} s: {}", every.toSeconds(), e.toString());
        }
    }

    /** Cancels later passes and waits up to {@link #CLOSE_WAIT} for a running one (before the pool closes). */
    @Override
    public void close() {
        timer.shutdown();
        try {
            if (!timer.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("a retention pass was still running after {} s; interrupting it", CLOSE_WAIT.toSeconds());
                timer.shutdownNow();
            }
        } catch (InterruptedException e) {
            timer.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}

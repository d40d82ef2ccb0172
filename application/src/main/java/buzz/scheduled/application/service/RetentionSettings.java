package buzz.scheduled.application.service;

import java.time.Duration;

/**
 * How terminal messages are pruned (docs/scheduled-messages.md §6).
 *
 * @param retention       how long a terminal message is kept after it last changed (default 7 days)
 * @param batchSize       rows deleted per transaction (small, so no pass holds long locks; default 500)
 * @param maxBatchesPerPass batches one {@code prune()} call may run before yielding to the next pass
 */
public record RetentionSettings(Duration retention, int batchSize, int maxBatchesPerPass) {
    /** The default retention: 7 days. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
    /** The default batch size. */
    public static final int DEFAULT_BATCH_SIZE = 500;
    /** The default number of batches per pass. */
    public static final int DEFAULT_MAX_BATCHES_PER_PASS = 100;

    public RetentionSettings {
        if (retention == null || retention.isNegative()) {
            throw new IllegalArgumentException("retention must be zero or more, got " + retention);
        }
        if (batchSize < 1 || batchSize > 10_000) {
            throw new IllegalArgumentException("retention batch size must be 1..10000, got " + batchSize);
        }
        if (maxBatchesPerPass < 1) {
            throw new IllegalArgumentException("batches per pass must be at least 1, got " + maxBatchesPerPass);
        }
    }

    /** 7 days, 500 rows a batch, 100 batches a pass. */
    public static RetentionSettings defaults() {
        return new RetentionSettings(DEFAULT_RETENTION, DEFAULT_BATCH_SIZE, DEFAULT_MAX_BATCHES_PER_PASS);
    }
}

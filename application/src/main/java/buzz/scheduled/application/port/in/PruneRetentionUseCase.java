package buzz.scheduled.application.port.in;

/**
 * Deletes terminal messages ({@code published}, {@code cancelled}, {@code failed}) older than the retention
 * (docs/scheduled-messages.md §6, default 7 days) in small batches, each its own short transaction.
 */
public interface PruneRetentionUseCase {

    /**
     * One pruning pass: batches until one comes back short or the pass's batch budget is spent.
     *
     * @return how many messages were deleted
     */
    int prune();
}

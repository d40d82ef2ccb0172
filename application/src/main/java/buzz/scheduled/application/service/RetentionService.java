package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.PruneRetentionUseCase;
import buzz.scheduled.application.port.out.ChannelAdministration;

/**
 * Prunes terminal messages past the retention in small batches (docs/scheduled-messages.md §6,
 * docs/failure-scenarios.md F10). Each batch is its own transaction, so a large backlog never becomes one long delete;
 * a pass stops after its batch budget and the next pass continues.
 */
public final class RetentionService implements PruneRetentionUseCase {

    private final ChannelAdministration administration;
    private final RetentionSettings settings;

    public RetentionService(ChannelAdministration administration, RetentionSettings settings) {
        if (administration == null || settings == null) {
            throw new IllegalArgumentException("retention needs the channel administration port and settings");
        }
        this.administration = administration;
        this.settings = settings;
    }

    @Override
    public int prune() {
        int total = 0;
        for (int batch = 0; batch < settings.maxBatchesPerPass(); batch++) {
            int deleted = administration.pruneTerminal(settings.retention(), settings.batchSize());
            total += deleted;
            if (deleted < settings.batchSize()) {
                break;
            }
        }
        return total;
    }
}

package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.QueueStatsUseCase.QueueFigures;
import java.time.Duration;

/**
 * Reads the queue's figures for the operator's view in one statement on the store's clock. Its one user is the
 * operator view; the figures' shape is the in-port's, which the store fills as is.
 */
public interface QueueStatistics {

    /**
     * The figures now.
     *
     * @param window         how far back the recent figures reach (the page shows one hour)
     * @param recentFailures how many of the latest failures to return (≥ 0)
     */
    QueueFigures figures(Duration window, int recentFailures);
}

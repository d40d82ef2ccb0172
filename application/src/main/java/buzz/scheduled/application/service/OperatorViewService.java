package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.AdminMessagesUseCase;
import buzz.scheduled.application.port.in.QueueStatsUseCase;
import buzz.scheduled.application.port.out.AdminMessageQueries;
import buzz.scheduled.application.port.out.LinkStatus;
import buzz.scheduled.application.port.out.QueueStatistics;
import java.time.Duration;

/** The operator's read-only view of the queue: stats and message metadata (never content). */
public final class OperatorViewService implements QueueStatsUseCase, AdminMessagesUseCase {

    /** How far back the recent figures reach: the page's lateness chart shows one hour. */
    public static final Duration WINDOW = Duration.ofHours(1);
    /** How many of the latest failures the stats carry. */
    public static final int RECENT_FAILURES = 20;

    private final QueueStatistics statistics;
    private final AdminMessageQueries messages;
    private final LinkStatus links;

    public OperatorViewService(QueueStatistics statistics, AdminMessageQueries messages, LinkStatus links) {
        if (statistics == null || messages == null || links == null) {
            throw new IllegalArgumentException("the operator view needs statistics, message queries and links");
        }
        this.statistics = statistics;
        this.messages = messages;
        this.links = links;
    }

    @Override
    public QueueStats stats() {
        return new QueueStats(statistics.figures(WINDOW, RECENT_FAILURES), links.links());
    }

    @Override
    public AdminPage list(AdminQuery query) {
        return messages.list(query);
    }

    @Override
    public MatchCount count(AdminQuery query) {
        return messages.count(query);
    }
}

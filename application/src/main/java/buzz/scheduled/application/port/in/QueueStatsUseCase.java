package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The queue at a glance for operators ({@code GET /v1/admin/stats}, the operator page, the queue gauges of
 * {@code GET /metrics}): counts by state, the late-delivery reservation, recent lateness and throughput, recent
 * failures with their reasons, and whether the relay connection, the wake-up listener and the NIP-29 feed are up.
 * Never any event content.
 */
public interface QueueStatsUseCase {

    /** The figures now, on the database clock; one read of the store. */
    QueueStats stats();

    /**
     * The operator's view of the queue.
     *
     * @param figures what the store holds
     * @param links   the connections this process keeps
     */
    record QueueStats(QueueFigures figures, Links links) {
        public QueueStats {
            if (figures == null || links == null) {
                throw new IllegalArgumentException("queue stats need figures and links");
            }
        }
    }

    /**
     * What the store holds, read in one statement on its clock.
     *
     * @param now            the store's clock
     * @param byState        every state's wire name ({@code scheduled} … {@code failed}) to its number of messages
     * @param overdue        non-terminal messages already due
     * @param heldBefore     the late-delivery reservation (docs/scheduled-messages.md): the earliest instant an
     *                       overdue event may still land at; empty when nothing is overdue
     * @param oldestOverdue  the due time of the oldest non-terminal message already due; empty when none is
     * @param nextDue        the earliest due time after now of a non-terminal message, if any
     * @param window         the recent figures below: published and failed messages that ended in the last hour
     * @param recentFailures the latest failed messages, newest first
     */
    record QueueFigures(Instant now, Map<String, Long> byState, long overdue, Optional<Instant> heldBefore,
                        Optional<Instant> oldestOverdue, Optional<Instant> nextDue, RecentWindow window,
                        List<RecentFailure> recentFailures) {
        public QueueFigures {
            if (now == null || byState == null || heldBefore == null || oldestOverdue == null || nextDue == null
                    || window == null || recentFailures == null) {
                throw new IllegalArgumentException("queue figures have a missing field");
            }
            if (overdue < 0) {
                throw new IllegalArgumentException("overdue must not be negative, got " + overdue);
            }
            byState = Map.copyOf(byState);
            recentFailures = List.copyOf(recentFailures);
        }
    }

    /**
     * Deliveries that ended in the last hour: lateness is {@code published − due} on the database clock.
     *
     * @param published  messages published in the window
     * @param failed     messages failed in the window
     * @param retried    delivery attempts in the window that ended in a retry (a transient relay answer, no answer,
     *                   a dropped connection), of any message
     * @param lateness   lateness percentiles over the window's published messages; empty when none was published
     * @param minutes    one entry per minute that had an outcome, oldest first (for the page's chart)
     */
    record RecentWindow(long published, long failed, long retried, Optional<LatenessPercentiles> lateness,
                        List<MinuteFigures> minutes) {
        public RecentWindow {
            if (published < 0 || failed < 0 || retried < 0 || lateness == null || minutes == null) {
                throw new IllegalArgumentException("a recent window needs non-negative counts and its parts");
            }
            minutes = List.copyOf(minutes);
        }
    }

    /** Lateness in seconds (fractions allowed): median, 90th, 99th percentile and the largest. */
    record LatenessPercentiles(double p50, double p90, double p99, double max) {
    }

    /**
     * One minute of the window.
     *
     * @param start        the minute's first instant
     * @param published    messages published in it
     * @param failed       messages failed in it
     * @param latenessP50  median lateness in seconds of its published messages (0 when none)
     * @param latenessMax  largest lateness in seconds of its published messages (0 when none)
     */
    record MinuteFigures(Instant start, long published, long failed, double latenessP50, double latenessMax) {
    }

    /**
     * A failed message, without its content.
     *
     * @param id        the scheduled message
     * @param owner     its author
     * @param channel   its channel
     * @param reason    the failure reason's wire name ({@code relay_rejected}, {@code expired}, …)
     * @param detail    the relay's or the sidecar's words on the last failed or retried attempt, when recorded
     * @param failedAt  when it failed
     * @param attempts  claims made
     */
    record RecentFailure(ScheduleId id, PublicKey owner, Channel channel, String reason, Optional<String> detail,
                         Instant failedAt, int attempts) {
        public RecentFailure {
            if (id == null || owner == null || channel == null || reason == null || detail == null
                    || failedAt == null) {
                throw new IllegalArgumentException("a recent failure has a missing field");
            }
        }
    }

    /**
     * The connections of this process.
     *
     * @param relayConnected whether the relay WebSocket is open (and authenticated when the relay asked)
     * @param listening      whether the due-work {@code LISTEN} connection is up
     * @param groupFeed      whether the NIP-29 group state is in sync; empty when the access policy is not
     *                       {@code nip29}
     */
    record Links(boolean relayConnected, boolean listening, Optional<Boolean> groupFeed) {
        public Links {
            if (groupFeed == null) {
                throw new IllegalArgumentException("groupFeed must be present or empty");
            }
        }
    }
}

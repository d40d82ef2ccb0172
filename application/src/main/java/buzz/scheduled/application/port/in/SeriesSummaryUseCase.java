package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.SeriesId;
import java.time.Instant;
import java.util.Optional;

/**
 * How far along one of the owner's series is: how many of its messages remain pending and when the next and the
 * last are due (docs/openapi.yaml {@code getScheduledMessageSeries}).
 */
public interface SeriesSummaryUseCase {

    /** The summary; empty when the owner has no message in that series (another owner's series answers the same). */
    Optional<SeriesSummary> seriesSummary(PublicKey owner, SeriesId series);

    /**
     * One series of one owner, counted over its messages still stored (terminal ones are deleted after retention).
     *
     * @param series    which series
     * @param total     its messages still stored
     * @param pending   of those, not yet ended ({@code scheduled}, {@code claimed}, {@code sending})
     * @param published of those, published
     * @param cancelled of those, cancelled
     * @param failed    of those, failed
     * @param nextDueAt the earliest due time among the pending ones; empty when none is pending
     * @param lastDueAt the latest due time among the pending ones; empty when none is pending
     */
    record SeriesSummary(SeriesId series, int total, int pending, int published, int cancelled, int failed,
                         Optional<Instant> nextDueAt, Optional<Instant> lastDueAt) {
        public SeriesSummary {
            if (series == null || nextDueAt == null || lastDueAt == null) {
                throw new IllegalArgumentException("a series summary needs its series and due options");
            }
            if (total < 1 || pending < 0 || published < 0 || cancelled < 0 || failed < 0
                    || pending + published + cancelled + failed != total) {
                throw new IllegalArgumentException("series " + series + " counts do not add up: " + total + " = "
                        + pending + " + " + published + " + " + cancelled + " + " + failed);
            }
            if ((pending == 0) != nextDueAt.isEmpty() || nextDueAt.isPresent() != lastDueAt.isPresent()) {
                throw new IllegalArgumentException("series " + series + " has due times exactly while pending");
            }
        }
    }
}

package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase.SeriesSummary;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import java.util.Optional;

/**
 * The storage the owner's reads need (get, list, and the read before each change). Implementations: PostgreSQL
 * (production) and an in-memory fake (tests).
 */
public interface OwnerMessageQueries {

    /** The message with {@code id}, whoever owns it (callers scope by owner). */
    Optional<ScheduledMessage> find(ScheduleId id);

    /** One page of an owner's messages ordered by (due time, id). */
    Page list(ListQuery query);

    /** The summary of {@code owner}'s messages in {@code series}; empty when the owner has none in it. */
    Optional<SeriesSummary> seriesSummary(PublicKey owner, SeriesId series);
}

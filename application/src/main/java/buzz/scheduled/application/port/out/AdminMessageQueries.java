package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminMessage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminPage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminQuery;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.MatchCount;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.Optional;

/**
 * Lists any owner's message metadata for operators, ordered by (due time, id), without reading event content.
 * Its users are the operator view and the message detail.
 */
public interface AdminMessageQueries {

    /** One page of {@code query}. */
    AdminPage list(AdminQuery query);

    /** How many messages {@code query} matches (its limit and cursor ignored), counted up to {@link MatchCount#CAP}. */
    MatchCount count(AdminQuery query);

    /** The metadata of message {@code id}, whoever owns it; empty for an unknown id. */
    Optional<AdminMessage> find(ScheduleId id);
}

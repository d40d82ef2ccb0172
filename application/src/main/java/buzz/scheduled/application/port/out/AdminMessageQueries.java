package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminPage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminQuery;

/**
 * Lists any owner's message metadata for operators, ordered by (due time, id), without reading event content.
 * Its one user is the operator view.
 */
public interface AdminMessageQueries {

    /** One page of {@code query}. */
    AdminPage list(AdminQuery query);
}

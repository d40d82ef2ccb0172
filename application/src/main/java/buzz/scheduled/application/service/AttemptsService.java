package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.AdminMessageDetailUseCase;
import buzz.scheduled.application.port.in.MessageAttemptsUseCase;
import buzz.scheduled.application.port.out.AdminMessageQueries;
import buzz.scheduled.application.port.out.AttemptHistory;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.List;
import java.util.Optional;

/** What a message's delivery attempts show: to its owner (scoped to them) and to operators (with its metadata). */
public final class AttemptsService implements MessageAttemptsUseCase, AdminMessageDetailUseCase {

    private final OwnerMessageQueries owners;
    private final AdminMessageQueries operators;
    private final AttemptHistory history;

    public AttemptsService(OwnerMessageQueries owners, AdminMessageQueries operators, AttemptHistory history) {
        if (owners == null || operators == null || history == null) {
            throw new IllegalArgumentException("the attempts service needs both message queries and the history");
        }
        this.owners = owners;
        this.operators = operators;
        this.history = history;
    }

    @Override
    public Optional<List<DeliveryAttempt>> attempts(PublicKey owner, ScheduleId id) {
        return owners.find(id)
                .filter(message -> message.owner().equals(owner))
                .map(message -> history.attempts(id));
    }

    @Override
    public Optional<AdminMessageDetail> detail(ScheduleId id) {
        return operators.find(id).map(message -> new AdminMessageDetail(message, history.attempts(id)));
    }
}

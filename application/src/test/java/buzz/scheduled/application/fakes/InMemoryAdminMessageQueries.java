package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminMessage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminPage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminQuery;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.MatchCount;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.Position;
import buzz.scheduled.application.port.out.AdminMessageQueries;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Operators' message queries over the rows of an {@link InMemoryOwnerMessages}: the same metadata the PostgreSQL
 * queries read, ordered by (due time, id). The fake keeps no relay words, so {@code last_error} is always empty.
 */
public final class InMemoryAdminMessageQueries implements AdminMessageQueries {
    private static final Comparator<ScheduledMessage> BY_DUE = Comparator.comparing(ScheduledMessage::dueAt)
            .thenComparing(m -> m.id().value());

    private final InMemoryOwnerMessages store;

    public InMemoryAdminMessageQueries(InMemoryOwnerMessages store) {
        this.store = store;
    }

    @Override
    public AdminPage list(AdminQuery query) {
        List<AdminMessage> matching = matching(query)
                .filter(m -> query.after().map(after -> beyond(m, after, query.latestFirst())).orElse(true))
                .sorted(query.latestFirst() ? BY_DUE.reversed() : BY_DUE)
                .limit(query.limit() + 1L)
                .map(InMemoryAdminMessageQueries::metadata)
                .toList();
        if (matching.size() <= query.limit()) {
            return new AdminPage(matching, Optional.empty());
        }
        List<AdminMessage> page = matching.subList(0, query.limit());
        AdminMessage last = page.getLast();
        return new AdminPage(page, Optional.of(new Position(last.dueAt(), last.id())));
    }

    @Override
    public MatchCount count(AdminQuery query) {
        long count = matching(query).limit(MatchCount.CAP + 1).count();
        return new MatchCount(Math.min(count, MatchCount.CAP), count > MatchCount.CAP);
    }

    private Stream<ScheduledMessage> matching(AdminQuery query) {
        return store.rows().stream()
                .filter(m -> query.states().contains(m.state().wireName()))
                .filter(m -> query.channel().map(m.channel()::equals).orElse(true))
                .filter(m -> query.owner().map(m.owner()::equals).orElse(true))
                .filter(m -> query.dueInRange(m.dueAt()));
    }

    @Override
    public Optional<AdminMessage> find(ScheduleId id) {
        return store.find(id).map(InMemoryAdminMessageQueries::metadata);
    }

    /** Whether {@code message} comes after {@code position} in the page order (latest first or earliest first). */
    private static boolean beyond(ScheduledMessage message, Position position, boolean latestFirst) {
        int byDue = message.dueAt().compareTo(position.dueAt());
        int order = byDue != 0 ? byDue : message.id().value().compareTo(position.id().value());
        return latestFirst ? order < 0 : order > 0;
    }

    private static AdminMessage metadata(ScheduledMessage m) {
        return new AdminMessage(m.id(), m.owner(), m.channel(), m.revision().number(), m.state().wireName(),
                m.failureReason().map(FailureReason::wireName), m.eventId(), m.dueAt(), m.attempts(), m.createdAt(),
                m.updatedAt(), m.state().fields().finishedAt(), Optional.empty(), m.event().isEmpty());
    }
}

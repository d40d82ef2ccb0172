package buzz.scheduled.adapters.postgres.testing;

import buzz.scheduled.adapters.postgres.PostgresMessageAdmission;
import buzz.scheduled.adapters.postgres.PostgresOwnerMessageChanges;
import buzz.scheduled.adapters.postgres.PostgresOwnerMessageQueries;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.CancelMatchingResult;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.Selection;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase.SeriesSummary;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The owner side's three PostgreSQL ports over one pool, as one object for tests that act as an owner would (the
 * storage contracts, end-to-end stacks): each call goes to the class that implements its port, as bootstrap wires
 * them ({@link PostgresOwnerMessageQueries}, {@link PostgresMessageAdmission}, {@link PostgresOwnerMessageChanges}).
 */
public final class PostgresOwnerMessages implements OwnerMessageQueries, MessageAdmission, OwnerMessageChanges {

    private final PostgresOwnerMessageQueries queries;
    private final PostgresMessageAdmission admission;
    private final PostgresOwnerMessageChanges changes;

    /** The three ports over {@code dataSource}. */
    public PostgresOwnerMessages(DataSource dataSource) {
        this.queries = new PostgresOwnerMessageQueries(dataSource);
        this.admission = new PostgresMessageAdmission(dataSource);
        this.changes = new PostgresOwnerMessageChanges(dataSource);
    }

    /** The database clock ({@link PostgresOwnerMessageQueries#now()}). */
    public Instant now() {
        return queries.now();
    }

    @Override
    public Optional<ScheduledMessage> find(ScheduleId id) {
        return queries.find(id);
    }

    @Override
    public Page list(ListQuery query) {
        return queries.list(query);
    }

    @Override
    public Optional<SeriesSummary> seriesSummary(PublicKey owner, SeriesId series) {
        return queries.seriesSummary(owner, series);
    }

    @Override
    public CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits) {
        return admission.create(message, key, limits);
    }

    @Override
    public List<CreateResult> createBatch(List<BatchEntry> entries, CreateLimits limits) {
        return admission.createBatch(entries, limits);
    }

    @Override
    public boolean channelDeleted(Channel channel) {
        return admission.channelDeleted(channel);
    }

    @Override
    public Set<Channel> deletedChannels(Collection<Channel> channels) {
        return admission.deletedChannels(channels);
    }

    @Override
    public boolean replace(ScheduledMessage expected, ScheduledMessage next) {
        return changes.replace(expected, next);
    }

    @Override
    public ReviseResult replaceRevision(ScheduledMessage expected, ScheduledMessage next, CreateLimits limits) {
        return changes.replaceRevision(expected, next, limits);
    }

    @Override
    public CancelMatchingResult.Cancelled cancelMatching(PublicKey owner, Selection selection) {
        return changes.cancelMatching(owner, selection);
    }
}

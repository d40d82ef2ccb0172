package buzz.scheduled.adapters.http;

import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
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
import java.sql.SQLException;
import buzz.scheduled.domain.schedule.SeriesId;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The owner side's three storage ports over an in-memory store, passing every call on unless a test makes it fail like
 * an exhausted connection pool
 * ({@link Mode#POOL_TIMEOUT}) or hang like an unresponsive database ({@link Mode#HANG}, until {@link #release()}).
 */
final class FaultyScheduleStore implements OwnerMessageQueries, MessageAdmission, OwnerMessageChanges {
    enum Mode { HEALTHY, POOL_TIMEOUT, HANG, READ_ONLY }

    private final InMemoryOwnerMessages delegate;
    private volatile Mode mode = Mode.HEALTHY;
    private final CountDownLatch released = new CountDownLatch(1);
    private final CountDownLatch hanging = new CountDownLatch(1);

    FaultyScheduleStore(InMemoryOwnerMessages delegate) {
        this.delegate = delegate;
    }

    void mode(Mode next) {
        mode = next;
    }

    /** Lets hanging calls go on (they then fail like a pool timeout). */
    void release() {
        released.countDown();
    }

    /** Waits until a call is hanging. */
    boolean awaitHanging(Duration timeout) throws InterruptedException {
        return hanging.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void fault() {
        switch (mode) {
            case HEALTHY -> {
            }
            case POOL_TIMEOUT -> throw new IllegalStateException("query failed",
                    new SQLTransientConnectionException("pool - Connection is not available, request timed out after 5000ms"));
            case READ_ONLY -> throw new IllegalStateException("query failed", new SQLException(
                    "ERROR: cannot execute INSERT in a read-only transaction", "25006"));
            case HANG -> {
                hanging.countDown();
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IllegalStateException("released after hanging");
            }
        }
    }

    @Override
    public CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits) {
        fault();
        return delegate.create(message, key, limits);
    }

    @Override
    public List<CreateResult> createBatch(List<BatchEntry> entries, CreateLimits limits) {
        fault();
        return delegate.createBatch(entries, limits);
    }

    @Override
    public Set<Channel> deletedChannels(Collection<Channel> channels) {
        fault();
        return delegate.deletedChannels(channels);
    }

    @Override
    public Optional<SeriesSummary> seriesSummary(PublicKey owner, SeriesId series) {
        fault();
        return delegate.seriesSummary(owner, series);
    }

    @Override
    public CancelMatchingResult.Cancelled cancelMatching(PublicKey owner, Selection selection) {
        fault();
        return delegate.cancelMatching(owner, selection);
    }

    @Override
    public Optional<ScheduledMessage> find(ScheduleId id) {
        fault();
        return delegate.find(id);
    }

    @Override
    public Page list(ListQuery query) {
        fault();
        return delegate.list(query);
    }

    @Override
    public boolean replace(ScheduledMessage expected, ScheduledMessage next) {
        fault();
        return delegate.replace(expected, next);
    }

    @Override
    public boolean channelDeleted(Channel channel) {
        fault();
        return delegate.channelDeleted(channel);
    }

    @Override
    public ReviseResult replaceRevision(ScheduledMessage expected, ScheduledMessage next, CreateLimits limits) {
        fault();
        return delegate.replaceRevision(expected, next, limits);
    }

}

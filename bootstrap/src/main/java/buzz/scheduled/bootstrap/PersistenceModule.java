package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.postgres.PostgresAdminMessageQueries;
import buzz.scheduled.adapters.postgres.PostgresAttemptHistory;
import buzz.scheduled.adapters.postgres.PostgresChannelAdministration;
import buzz.scheduled.adapters.postgres.PostgresDatabaseProbe;
import buzz.scheduled.adapters.postgres.PostgresDeliveryStore;
import buzz.scheduled.adapters.postgres.PostgresMessageAdmission;
import buzz.scheduled.adapters.postgres.PostgresOwnerMessageChanges;
import buzz.scheduled.adapters.postgres.PostgresOwnerMessageQueries;
import buzz.scheduled.adapters.postgres.PostgresQueueStatistics;
import buzz.scheduled.adapters.postgres.PostgresReplayStore;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.out.AdminMessageQueries;
import buzz.scheduled.application.port.out.AttemptHistory;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.port.out.DatabaseAvailability;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.application.port.out.QueueStatistics;
import buzz.scheduled.application.port.out.ReplayStore;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.DatabaseWatch;
import buzz.scheduled.bootstrap.database.DatabaseUrls;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Binds the storage ports to the PostgreSQL adapter over the shared pool: the owner side's three (its reads,
 * admission, its changes: one jOOQ store), the
 * dispatcher's delivery store (plain JDBC), the channel administration (deletion, purges, retention pruning,
 * reservations), the operator view's reads (queue statistics, message metadata), and the database watch (a probe
 * on a connection of its own, through the pool's URL) as the store's clock, the database status and delivery's view
 * of the database's availability.
 */
public final class PersistenceModule extends AbstractModule {

    /**
     * Longest the probe's connect, login and query may each take before the check counts as failed (the database
     * down, owner requests refused at once). Readiness fails sooner, after 1 s without an answer.
     */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    @Provides
    @Singleton
    PostgresDatabaseProbe databaseProbe(DatabaseUrls urls) {
        return PostgresDatabaseProbe.of(urls.pooled(), PROBE_TIMEOUT, !urls.separateDirect());
    }

    /** Started (first check, then the timer) and closed by {@link Sidecar}. */
    @Provides
    @Singleton
    DatabaseWatch databaseWatch(PostgresDatabaseProbe probe, WallClock clock) {
        return new DatabaseWatch(probe, clock, DatabaseWatch.Settings.DEFAULT);
    }

    @Provides
    @Singleton
    StoreClock storeClock(DatabaseWatch watch) {
        return watch;
    }

    @Provides
    @Singleton
    DatabaseStatusUseCase databaseStatus(DatabaseWatch watch) {
        return watch;
    }

    /** Delivery pauses claiming while the watch finds the database taking no writes, and saves the watch checks. */
    @Provides
    @Singleton
    DatabaseAvailability databaseAvailability(DatabaseWatch watch) {
        return watch;
    }

    @Provides
    @Singleton
    OwnerMessageQueries ownerMessageQueries(DataSource dataSource) {
        return new PostgresOwnerMessageQueries(dataSource);
    }

    @Provides
    @Singleton
    MessageAdmission messageAdmission(DataSource dataSource) {
        return new PostgresMessageAdmission(dataSource);
    }

    @Provides
    @Singleton
    OwnerMessageChanges ownerMessageChanges(DataSource dataSource) {
        return new PostgresOwnerMessageChanges(dataSource);
    }

    @Provides
    @Singleton
    DeliveryStore deliveryStore(DataSource dataSource) {
        return new PostgresDeliveryStore(dataSource);
    }

    @Provides
    @Singleton
    ChannelAdministration channelAdministration(DataSource dataSource) {
        return new PostgresChannelAdministration(dataSource);
    }

    @Provides
    @Singleton
    QueueStatistics queueStatistics(DataSource dataSource) {
        return new PostgresQueueStatistics(dataSource);
    }

    @Provides
    @Singleton
    AdminMessageQueries adminMessageQueries(DataSource dataSource) {
        return new PostgresAdminMessageQueries(dataSource);
    }

    @Provides
    @Singleton
    AttemptHistory attemptHistory(DataSource dataSource) {
        return new PostgresAttemptHistory(dataSource);
    }

    /** The NIP-98 replay guard, shared by every node on the database and kept across restarts. */
    @Provides
    @Singleton
    ReplayStore replayStore(DataSource dataSource) {
        return new PostgresReplayStore(dataSource);
    }

}

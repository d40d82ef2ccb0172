package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.postgres.PostgresAdminMessageQueries;
import buzz.scheduled.adapters.postgres.PostgresChannelAdministration;
import buzz.scheduled.adapters.postgres.PostgresDeliveryStore;
import buzz.scheduled.adapters.postgres.PostgresQueueStatistics;
import buzz.scheduled.adapters.postgres.PostgresScheduleStore;
import buzz.scheduled.application.port.out.AdminMessageQueries;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.QueueStatistics;
import buzz.scheduled.application.port.out.ScheduleStore;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import javax.sql.DataSource;

/**
 * Binds the storage ports to the PostgreSQL adapter over the shared pool: the schedule store (jOOQ), the
 * dispatcher's delivery store (plain JDBC), the channel administration (deletion, purges, retention pruning,
 * reservations), and the operator view's reads (queue statistics, message metadata).
 */
public final class PersistenceModule extends AbstractModule {

    @Provides
    @Singleton
    ScheduleStore scheduleStore(DataSource dataSource) {
        return new PostgresScheduleStore(dataSource);
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

}

package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.QueueStatistics;
import buzz.scheduled.application.port.out.QueueStatisticsContract;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The queue figures of the operator's view against PostgreSQL (a scratch database with this build's migrations). */
class PostgresQueueStatisticsTest extends QueueStatisticsContract<PostgresOwnerMessages> {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected PostgresOwnerMessages emptyStore() {
        db.truncateAllTables();
        return new PostgresOwnerMessages(db.dataSource());
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new PostgresDeliveryStore(db.dataSource());
    }

    @Override
    protected QueueStatistics queueStatistics() {
        return new PostgresQueueStatistics(db.dataSource());
    }

    @Override
    protected void deleteChannel(Channel channel) {
        db.execute("INSERT INTO channel_tombstone (channel) VALUES (?)", channel.value());
    }

    @Override
    protected void letTimePass(Duration duration) {
        db.letTimePass(duration);
    }
}

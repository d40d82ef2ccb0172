package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.ScheduleStoreContract;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The owner's storage contract against PostgreSQL (a scratch database with this build's migrations). */
class PostgresScheduleStoreTest extends ScheduleStoreContract<PostgresScheduleStore> {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected PostgresScheduleStore emptyStore() {
        db.truncateAllTables();
        return new PostgresScheduleStore(db.dataSource());
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new PostgresDeliveryStore(db.dataSource());
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

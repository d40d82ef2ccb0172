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

    /** now() cannot be moved, so every stored time moves back instead; relative to now() that is the same. */
    @Override
    protected void letTimePass(Duration duration) {
        long micros = duration.toNanos() / 1_000;
        db.execute("UPDATE scheduled_message SET due_at = due_at - ? * interval '1 microsecond',"
                + " retry_at = retry_at - ? * interval '1 microsecond',"
                + " lease_until = lease_until - ? * interval '1 microsecond',"
                + " finished_at = finished_at - ? * interval '1 microsecond',"
                + " created_at = created_at - ? * interval '1 microsecond',"
                + " updated_at = updated_at - ? * interval '1 microsecond'", micros, micros, micros, micros, micros, micros);
    }
}

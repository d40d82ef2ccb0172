package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.port.out.ChannelAdministrationContract;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The channel administration contract against PostgreSQL (a scratch database with this build's migrations). */
class PostgresChannelAdministrationTest extends ChannelAdministrationContract<PostgresScheduleStore> {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected PostgresScheduleStore emptyStore() {
        db.truncateAllTables();
        return new PostgresScheduleStore(db.dataSource());
    }

    @Override
    protected ChannelAdministration administration() {
        return new PostgresChannelAdministration(db.dataSource());
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new PostgresDeliveryStore(db.dataSource());
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

    @Override
    protected boolean payloadStored(ScheduleId id) {
        return db.queryLong("SELECT (SELECT count(*) FROM scheduled_message WHERE id = ? AND event_json IS NOT NULL)"
                + " + (SELECT count(*) FROM scheduled_message_revision WHERE message_id = ? AND event_json IS NOT NULL)",
                id.value(), id.value()) > 0;
    }
}

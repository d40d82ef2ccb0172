package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.port.out.ChannelAdministrationContract;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The channel administration contract against PostgreSQL (a scratch database with this build's migrations). */
class PostgresChannelAdministrationTest extends ChannelAdministrationContract<PostgresOwnerMessages> {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected PostgresOwnerMessages emptyStore() {
        db.truncateAllTables();
        return new PostgresOwnerMessages(db.dataSource());
    }

    @Override
    protected ChannelAdministration administration() {
        return new PostgresChannelAdministration(db.dataSource());
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new PostgresDeliveryStore(db.dataSource());
    }

    @Override
    protected void letTimePass(Duration duration) {
        db.letTimePass(duration);
    }

    @Override
    protected boolean payloadStored(ScheduleId id) {
        return db.queryLong("SELECT (SELECT count(*) FROM scheduled_message WHERE id = ? AND event_json IS NOT NULL)"
                + " + (SELECT count(*) FROM scheduled_message_revision WHERE message_id = ? AND event_json IS NOT NULL)",
                id.value(), id.value()) > 0;
    }
}

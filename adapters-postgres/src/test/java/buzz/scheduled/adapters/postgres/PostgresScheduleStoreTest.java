package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.ScheduleStoreContract;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.util.List;
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

    @Override
    protected List<Revision> revisions(ScheduleId id) {
        return db.queryColumn("SELECT revision::text FROM scheduled_message_revision WHERE message_id = ?"
                + " ORDER BY revision", id.value()).stream().map(n -> new Revision(Integer.parseInt(n))).toList();
    }

    @Override
    protected List<Revision> revisionsWithEvent(ScheduleId id) {
        return db.queryColumn("SELECT revision::text FROM scheduled_message_revision WHERE message_id = ?"
                + " AND event_json IS NOT NULL ORDER BY revision", id.value()).stream()
                .map(n -> new Revision(Integer.parseInt(n))).toList();
    }
}

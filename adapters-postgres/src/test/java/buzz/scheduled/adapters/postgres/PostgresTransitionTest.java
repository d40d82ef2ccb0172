package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.TransitionContract;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every row of the domain's state machine against PostgreSQL: the claim, renewal, finishing, reaping and revoking
 * statements, whose state literals come from the same table, must leave each row as the table says.
 */
class PostgresTransitionTest extends TransitionContract<PostgresOwnerMessages> {

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
    protected ChannelAdministration administration() {
        return new PostgresChannelAdministration(db.dataSource());
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

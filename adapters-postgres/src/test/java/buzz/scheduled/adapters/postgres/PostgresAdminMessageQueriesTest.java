package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.AdminMessageQueries;
import buzz.scheduled.application.port.out.AdminMessageQueriesContract;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The operators' message queries' contract against PostgreSQL, and the relay's words only PostgreSQL keeps. */
class PostgresAdminMessageQueriesTest extends AdminMessageQueriesContract<PostgresOwnerMessages> {

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
    protected AdminMessageQueries adminQueries() {
        return new PostgresAdminMessageQueries(db.dataSource());
    }

    @Override
    protected void deleteChannel(Channel channel) {
        db.execute("INSERT INTO channel_tombstone (channel) VALUES (?)", channel.value());
    }

    @Override
    protected void letTimePass(Duration duration) {
        db.letTimePass(duration);
    }

    @Test
    void find_afterARetry_carriesTheRelaysWordsAsLastError() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-30)));
        ClaimedMessage claimed = delivery.claim(1, LEASE).messages().get(0);
        delivery.finish(List.of(new Finish.Retry(claimed.claim(), claimed.revision(), Duration.ofSeconds(30),
                Duration.ofMinutes(15), "rate-limited: slow down")));

        assertThat(adminQueries().find(message.id()).orElseThrow().lastError()).contains("rate-limited: slow down");
    }
}

package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.AdminMessageQueries;
import buzz.scheduled.application.port.out.AdminMessageQueriesContract;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import java.time.Instant;

/** The operators' message queries' contract against the in-memory rows. */
class InMemoryAdminMessageQueriesTest extends AdminMessageQueriesContract<InMemoryOwnerMessages> {

    private SettableClock clock;
    private InMemoryOwnerMessages rows;

    @Override
    protected InMemoryOwnerMessages emptyStore() {
        clock = new SettableClock(Instant.parse("2027-01-01T12:00:00.123456Z"));
        rows = new InMemoryOwnerMessages(clock);
        return rows;
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new InMemoryDeliveryStore(rows, clock);
    }

    @Override
    protected AdminMessageQueries adminQueries() {
        return new InMemoryAdminMessageQueries(rows);
    }

    @Override
    protected void deleteChannel(Channel channel) {
        rows.addTombstone(channel);
    }

    @Override
    protected void letTimePass(Duration duration) {
        clock.advance(duration);
    }
}

package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.AttemptHistory;
import buzz.scheduled.application.port.out.AttemptHistoryContract;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import java.time.Instant;

/** The attempt history's contract against the in-memory delivery store. */
class InMemoryAttemptHistoryTest extends AttemptHistoryContract<InMemoryOwnerMessages> {

    private SettableClock clock;
    private InMemoryOwnerMessages rows;
    private InMemoryDeliveryStore deliveryStore;

    @Override
    protected InMemoryOwnerMessages emptyStore() {
        clock = new SettableClock(Instant.parse("2027-01-01T12:00:00.123456Z"));
        rows = new InMemoryOwnerMessages(clock);
        return rows;
    }

    @Override
    protected DeliveryStore deliveryStore() {
        deliveryStore = new InMemoryDeliveryStore(rows, clock);
        return deliveryStore;
    }

    @Override
    protected AttemptHistory attemptHistory() {
        return deliveryStore;
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

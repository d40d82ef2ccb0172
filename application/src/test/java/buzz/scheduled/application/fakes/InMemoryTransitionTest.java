package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.TransitionContract;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import java.time.Instant;

/** Every row of the domain's state machine against the in-memory fakes, which apply the table themselves. */
class InMemoryTransitionTest extends TransitionContract<InMemoryOwnerMessages> {

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
    protected ChannelAdministration administration() {
        return new InMemoryChannelAdministration(rows);
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

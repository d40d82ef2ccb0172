package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.port.out.ChannelAdministrationContract;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;

/** The channel administration contract against the in-memory fake. */
class InMemoryChannelAdministrationTest extends ChannelAdministrationContract<InMemoryOwnerMessages> {

    private SettableClock clock;
    private InMemoryOwnerMessages fake;

    @Override
    protected InMemoryOwnerMessages emptyStore() {
        clock = new SettableClock(Instant.parse("2027-01-01T12:00:00.123456Z"));
        fake = new InMemoryOwnerMessages(clock);
        return fake;
    }

    @Override
    protected ChannelAdministration administration() {
        return new InMemoryChannelAdministration(fake);
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new InMemoryDeliveryStore(fake, clock);
    }

    @Override
    protected void letTimePass(Duration duration) {
        clock.advance(duration);
    }

    @Override
    protected boolean payloadStored(ScheduleId id) {
        return fake.find(id).flatMap(m -> m.event()).isPresent();
    }
}

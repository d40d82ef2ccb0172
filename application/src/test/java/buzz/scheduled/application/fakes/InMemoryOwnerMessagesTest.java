package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.OwnerMessagesContract;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The storage contract against the in-memory fake, so application tests stand on a faithful stand-in. */
class InMemoryOwnerMessagesTest extends OwnerMessagesContract<InMemoryOwnerMessages> {

    private SettableClock clock;
    private InMemoryOwnerMessages fake;

    @Override
    protected InMemoryOwnerMessages emptyStore() {
        clock = new SettableClock(Instant.parse("2027-01-01T12:00:00.123456Z"));
        fake = new InMemoryOwnerMessages(clock);
        return fake;
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new InMemoryDeliveryStore(fake, clock);
    }

    @Override
    protected void deleteChannel(Channel channel) {
        fake.addTombstone(channel);
    }

    @Override
    protected void letTimePass(Duration duration) {
        clock.advance(duration);
    }

    @Override
    protected List<Revision> revisions(ScheduleId id) {
        return fake.revisions(id);
    }

    @Override
    protected List<Revision> revisionsWithEvent(ScheduleId id) {
        return fake.revisionsWithEvent(id);
    }
}

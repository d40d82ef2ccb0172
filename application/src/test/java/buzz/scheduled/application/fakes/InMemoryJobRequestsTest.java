package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.JobRequests;
import buzz.scheduled.application.port.out.JobRequestsContract;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/** The job request store contract against the fake. */
class InMemoryJobRequestsTest extends JobRequestsContract {
    private SettableClock clock;
    private InMemoryJobRequests fake;

    @Override
    protected JobRequests emptyStore() {
        clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
        fake = new InMemoryJobRequests(clock);
        return fake;
    }

    @Override
    protected ScheduleId pendingMessage(PublicKey owner) {
        return new ScheduleId(UUID.randomUUID());
    }

    @Override
    protected void messageEnded(ScheduleId id, InMemoryJobRequests.End end) {
        fake.messageEnded(id, end);
    }

    @Override
    protected void timePasses(Duration duration) {
        clock.advance(duration);
    }
}

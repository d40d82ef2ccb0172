package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.NoticeOutbox;
import buzz.scheduled.application.port.out.NoticeOutboxContract;
import buzz.scheduled.domain.notice.MessageOutcome;
import java.time.Duration;
import java.time.Instant;

/** The notice outbox contract against the fake. */
class InMemoryNoticeOutboxTest extends NoticeOutboxContract {
    private SettableClock clock;
    private InMemoryNoticeOutbox fake;

    @Override
    protected NoticeOutbox emptyOutbox() {
        clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
        fake = new InMemoryNoticeOutbox(clock);
        fake.switchTo(true);
        return fake;
    }

    @Override
    protected void messageEnded(MessageOutcome outcome) {
        fake.queue(outcome);
    }

    @Override
    protected void timePasses(Duration duration) {
        clock.advance(duration);
    }
}

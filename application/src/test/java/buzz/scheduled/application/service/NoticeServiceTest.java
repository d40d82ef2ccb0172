package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.InMemoryNoticeOutbox;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.SendNoticesUseCase.Pass;
import buzz.scheduled.application.port.out.DirectMessages;
import buzz.scheduled.application.port.out.NostrDelivery;
import buzz.scheduled.domain.notice.MessageOutcome;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class NoticeServiceTest {
    private final SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryNoticeOutbox outbox = new InMemoryNoticeOutbox(clock);
    private final RecordingMessages messages = new RecordingMessages();
    private final NoticeService service = new NoticeService(outbox, messages,
            new NoticeSettings(2, 200, Duration.ofMinutes(2)));

    record Message(PublicKey recipient, String text) {
    }

    static final class RecordingMessages implements DirectMessages {
        final List<Message> sent = new CopyOnWriteArrayList<>();
        volatile boolean down;

        @Override
        public NostrDelivery send(PublicKey recipient, String text) {
            if (down) {
                return new NostrDelivery.Undelivered("connection refused");
            }
            sent.add(new Message(recipient, text));
            return new NostrDelivery.Delivered(new EventId(String.format("%064x", sent.size())));
        }
    }

    NoticeServiceTest() {
        outbox.switchTo(true);
    }

    private MessageOutcome failed(PublicKey owner, String channel) {
        Instant due = clock.now().minusSeconds(60);
        return new MessageOutcome(owner, new ScheduleId(UUID.randomUUID()), new Channel(channel),
                new EventId(String.format("%064x", UUID.randomUUID().getMostSignificantBits() & Long.MAX_VALUE)), due,
                due.plusSeconds(1), new MessageOutcome.Result.Failed(FailureReason.ACCESS_DENIED,
                Optional.of("restricted: not a member")));
    }

    @Test
    void sendDue_outcomesOfTwoOwners_makeOneNoticeEach_neverMixingThem() {
        MessageOutcome alice = failed(TestEvents.ALICE, "alice-room");
        MessageOutcome bob = failed(TestEvents.BOB, "bob-room");
        outbox.queue(alice);
        outbox.queue(bob);

        Pass pass = service.sendDue();

        assertThat(pass).isEqualTo(new Pass(2, 2, 0, 0));
        assertThat(messages.sent).satisfiesExactlyInAnyOrder(
                m -> {
                    assertThat(m.recipient()).isEqualTo(TestEvents.ALICE);
                    assertThat(m.text()).contains(alice.id().toString(), "alice-room", alice.eventId().hex())
                            .doesNotContain(bob.id().toString(), "bob-room");
                },
                m -> {
                    assertThat(m.recipient()).isEqualTo(TestEvents.BOB);
                    assertThat(m.text()).contains(bob.id().toString()).doesNotContain(alice.id().toString());
                });
        assertThat(outbox.unsent()).isZero();
    }

    @Test
    void sendDue_overTheOwnersHourlyBound_holdsTheRestBackUntilTheHourMadeRoom() {
        for (int i = 0; i < 50; i++) {
            outbox.queue(failed(TestEvents.ALICE, "general"));
        }

        Pass first = service.sendDue();
        clock.advance(Duration.ofMinutes(31));
        Pass stillBound = service.sendDue();
        clock.advance(Duration.ofMinutes(30));
        Pass afterTheHour = service.sendDue();

        assertThat(first).isEqualTo(new Pass(2, 40, 10, 0));
        assertThat(stillBound.notices()).isZero();
        assertThat(afterTheHour).isEqualTo(new Pass(1, 10, 0, 0));
        assertThat(messages.sent).hasSize(3);
        assertThat(messages.sent.get(0).text()).startsWith("20 of your scheduled messages could not be sent.");
    }

    @Test
    void sendDue_noRelayTookIt_keepsItQueuedAndSendsItLater() {
        outbox.queue(failed(TestEvents.ALICE, "general"));
        messages.down = true;

        Pass whileDown = service.sendDue();
        messages.down = false;
        Pass tooSoon = service.sendDue();
        clock.advance(NoticeService.retryDelay(0));
        Pass later = service.sendDue();

        assertThat(whileDown).isEqualTo(new Pass(0, 0, 0, 1));
        assertThat(tooSoon.outcomes()).isZero();
        assertThat(later).isEqualTo(new Pass(1, 1, 0, 0));
    }

    @Test
    void retryDelay_growsFromThirtySecondsToAnHour() {
        assertThat(NoticeService.retryDelay(0)).isEqualTo(Duration.ofSeconds(30));
        assertThat(NoticeService.retryDelay(1)).isEqualTo(Duration.ofSeconds(60));
        assertThat(NoticeService.retryDelay(20)).isEqualTo(Duration.ofHours(1));
    }
}

package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.FakeOwnerWriteLimiter;
import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
import buzz.scheduled.application.fakes.ScriptedAccessPolicy;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.CancelMessageUseCase.CancelMessageCommand;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The owner limits of issue 17 at the service with the default limits: the channel window counts per owner (30)
 * with a channel-wide backstop (300), and the write rate is asked before anything else.
 */
class OwnerLimitsServiceTest {
    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);
    /** The start of a window an hour ahead. */
    private static final long WINDOW = (NOW.getEpochSecond() + 3600) / 300 * 300;

    private final SettableClock clock = new SettableClock(NOW);
    private final InMemoryOwnerMessages store = new InMemoryOwnerMessages(clock);
    private final FakeOwnerWriteLimiter writes = new FakeOwnerWriteLimiter();
    private final OwnerMessagesService service = new OwnerMessagesService(store, store, store,
            new FakeEventSignatures(), new ScriptedAccessPolicy(), new SequentialScheduleIds(), clock,
            DueWorkNotice.NONE, new SchedulingSettings(new AdmissionRules(AdmissionRules.DEFAULT_KINDS,
                    AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, Duration.ofDays(120)),
                    new CreateLimits(1_000, CreateLimits.DEFAULT_PER_OWNER_IN_CHANNEL_WINDOW,
                            CreateLimits.DEFAULT_PER_CHANNEL_WINDOW, CreateLimits.DEFAULT_CHANNEL_WINDOW,
                            CreateLimits.DEFAULT_REVISIONS_KEPT),
                    Duration.ofSeconds(900)), RelayLimits.UNKNOWN, writes);

    private static PublicKey owner(int n) {
        return new PublicKey(String.format("%064x", n + 1));
    }

    private ScheduleResult schedule(PublicKey owner, int second) {
        NostrEvent event = TestEvents.at(WINDOW + second).by(owner).content("m" + second).build();
        return service.schedule(new ScheduleMessageCommand(owner, event, Optional.empty()));
    }

    @Test
    void ownerAs30InAChannelWindow_doNotBlockOwnerB_butAs31stIsRefused() {
        for (int i = 0; i < 30; i++) {
            assertThat(schedule(owner(0), i)).isInstanceOf(ScheduleResult.Created.class);
        }

        ScheduleResult thirtyFirst = schedule(owner(0), 40);
        ScheduleResult bobs = schedule(owner(1), 40);

        assertThat(thirtyFirst).isInstanceOfSatisfying(ScheduleResult.Refused.class, refused -> {
            assertThat(refused.refusal().code()).isEqualTo(RefusalCode.RESTRICTED_TOO_MANY);
            assertThat(refused.refusal().message()).contains("you already have 30 messages in channel general");
        });
        assertThat(bobs).isInstanceOf(ScheduleResult.Created.class);
    }

    @Test
    void channelWideBackstop_refusesAnyOwnerOnce300AreDueInTheWindow() {
        for (int o = 0; o < 10; o++) {
            for (int i = 0; i < 30; i++) {
                assertThat(schedule(owner(o), i)).isInstanceOf(ScheduleResult.Created.class);
            }
        }

        ScheduleResult newcomer = schedule(owner(10), 100);

        assertThat(newcomer).isInstanceOfSatisfying(ScheduleResult.Refused.class, refused -> {
            assertThat(refused.refusal().code()).isEqualTo(RefusalCode.RESTRICTED_TOO_MANY);
            assertThat(refused.refusal().message()).contains("already has 300 messages from all owners");
        });
        assertThat(store.size()).isEqualTo(300);
    }

    @Test
    void overTheWriteRate_createAndCancelAnswerRateLimited_storeAndChangeNothing_otherOwnersWrite() {
        writes.allow(owner(0), 1, Duration.ofMillis(2500));
        ScheduledMessage first = ((ScheduleResult.Created) schedule(owner(0), 1)).message();

        ScheduleResult create = schedule(owner(0), 2);
        OwnerChangeResult cancel = service.cancel(new CancelMessageCommand(owner(0), first.id()));

        assertThat(create).isInstanceOfSatisfying(ScheduleResult.RateLimited.class, limited -> {
            assertThat(limited.retryAfter()).isEqualTo(Duration.ofMillis(2500));
            assertThat(limited.message()).contains("retry after 3 s");
        });
        assertThat(cancel).isInstanceOf(OwnerChangeResult.RateLimited.class);
        assertThat(store.find(first.id())).contains(first);
        assertThat(store.count(owner(0))).isEqualTo(1);
        assertThat(schedule(owner(1), 2)).isInstanceOf(ScheduleResult.Created.class);
        assertThat(writes.asked(owner(0))).isEqualTo(3);
    }
}

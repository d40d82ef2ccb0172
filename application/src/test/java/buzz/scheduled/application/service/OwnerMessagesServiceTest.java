package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
import buzz.scheduled.application.fakes.ScriptedAccessPolicy;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.CancelMessageUseCase.CancelMessageCommand;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.ReviseMessageUseCase.ReviseMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.in.SendNowUseCase.SendNowCommand;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class OwnerMessagesServiceTest {
    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);

    private final SettableClock clock = new SettableClock(NOW);
    private final InMemoryOwnerMessages store = new InMemoryOwnerMessages(clock);
    private final FakeEventSignatures signatures = new FakeEventSignatures();
    private final ScriptedAccessPolicy access = new ScriptedAccessPolicy();
    private final List<Instant> notices = new CopyOnWriteArrayList<>();
    private final OwnerMessagesService service = new OwnerMessagesService(store, store, store, signatures, access,
            new SequentialScheduleIds(), clock, notices::add, new SchedulingSettings(
                    new AdmissionRules(AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES,
                            Duration.ofDays(120)),
                    new MessageAdmission.CreateLimits(3, 2, Duration.ofMinutes(5)), Duration.ofSeconds(900)));

    private long inAnHour() {
        return NOW.getEpochSecond() + 3600;
    }

    private ScheduledMessage created(NostrEvent event) {
        ScheduleResult result = service.schedule(new ScheduleMessageCommand(event.pubkey(), event, Optional.empty()));
        assertThat(result).isInstanceOf(ScheduleResult.Created.class);
        return ((ScheduleResult.Created) result).message();
    }

    @Test
    void schedule_validEvent_storesRevisionOneDueAtCreatedAt() {
        NostrEvent event = TestEvents.at(inAnHour()).build();

        ScheduledMessage message = created(event);

        assertThat(message.revision()).isEqualTo(Revision.FIRST);
        assertThat(message.dueAt()).isEqualTo(Instant.ofEpochSecond(inAnHour()));
        assertThat(message.state().wireName()).isEqualTo("scheduled");
        assertThat(store.find(message.id())).contains(message);
    }

    @Test
    void schedule_badSignatureAndWrongOwner_refusesInvalidEventFirstAndStoresNothing() {
        NostrEvent event = TestEvents.at(inAnHour()).by(TestEvents.BOB).build();
        signatures.markInvalid(event.id(), "id does not match content");

        ScheduleResult result = service.schedule(new ScheduleMessageCommand(TestEvents.ALICE, event, Optional.empty()));

        assertThat(result).isEqualTo(new ScheduleResult.Refused(
                new buzz.scheduled.domain.schedule.Refusal(RefusalCode.INVALID_EVENT, "id does not match content")));
        assertThat(store.size()).isZero();
    }

    @Test
    void schedule_accessDenied_refusesWithPolicyCodeAndStoresNothing() {
        access.set(TestEvents.ALICE, new Channel("general"),
                new AccessDecision.Denied(RefusalCode.NOT_IN_CHANNEL, "not a member of general"));

        ScheduleResult result = service.schedule(new ScheduleMessageCommand(TestEvents.ALICE,
                TestEvents.at(inAnHour()).build(), Optional.empty()));

        assertThat(result).isInstanceOfSatisfying(ScheduleResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.NOT_IN_CHANNEL));
        assertThat(store.size()).isZero();
    }

    @Test
    void schedule_accessUnavailable_answersUnavailableAndStoresNothing() {
        access.set(TestEvents.ALICE, new Channel("general"), new AccessDecision.Unavailable("relay unreachable"));

        ScheduleResult result = service.schedule(new ScheduleMessageCommand(TestEvents.ALICE,
                TestEvents.at(inAnHour()).build(), Optional.empty()));

        assertThat(result).isEqualTo(new ScheduleResult.Unavailable("relay unreachable"));
        assertThat(store.size()).isZero();
    }

    @Test
    void schedule_sameKeySameEvent_replaysSameMessage() {
        NostrEvent event = TestEvents.at(inAnHour()).build();
        ScheduledMessage first = created(event);

        ScheduleResult again = service.schedule(new ScheduleMessageCommand(TestEvents.ALICE, event, Optional.empty()));

        assertThat(again).isEqualTo(new ScheduleResult.Replayed(first));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void schedule_sameKeyDifferentEvent_answersIdempotencyConflict() {
        service.schedule(new ScheduleMessageCommand(TestEvents.ALICE, TestEvents.at(inAnHour()).build(),
                Optional.of("key-1")));

        ScheduleResult other = service.schedule(new ScheduleMessageCommand(TestEvents.ALICE,
                TestEvents.at(inAnHour()).content("different").build(), Optional.of("key-1")));

        assertThat(other).isInstanceOf(ScheduleResult.IdempotencyConflict.class);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void schedule_pendingLimitReached_refusesTooManyPending() {
        created(TestEvents.at(inAnHour()).build());
        created(TestEvents.at(inAnHour() + 1000).build());
        created(TestEvents.at(inAnHour() + 2000).build());

        ScheduleResult fourth = service.schedule(new ScheduleMessageCommand(TestEvents.ALICE,
                TestEvents.at(inAnHour() + 3000).build(), Optional.empty()));

        assertThat(fourth).isInstanceOfSatisfying(ScheduleResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.TOO_MANY_PENDING));
    }

    @Test
    void schedule_channelWindowFull_refusesRestrictedTooMany() {
        created(TestEvents.at(inAnHour()).build());
        created(TestEvents.at(inAnHour()).by(TestEvents.BOB).build());

        ScheduleResult third = service.schedule(new ScheduleMessageCommand(TestEvents.BOB,
                TestEvents.at(inAnHour() + 1).by(TestEvents.BOB).build(), Optional.empty()));

        assertThat(third).isInstanceOfSatisfying(ScheduleResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.RESTRICTED_TOO_MANY));
    }

    @Test
    void revise_intoAFullChannelWindow_refusesRestrictedTooManyAndKeepsTheRevision() {
        created(TestEvents.at(inAnHour()).channel("busy").build());
        created(TestEvents.at(inAnHour()).channel("busy").by(TestEvents.BOB).build());
        ScheduledMessage elsewhere = created(TestEvents.at(inAnHour()).channel("quiet").build());

        OwnerChangeResult moved = service.revise(new ReviseMessageCommand(TestEvents.ALICE, elsewhere.id(),
                TestEvents.at(inAnHour()).channel("busy").content("moved").build(), Revision.FIRST));

        assertThat(moved).isInstanceOfSatisfying(OwnerChangeResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.RESTRICTED_TOO_MANY));
        assertThat(store.find(elsewhere.id())).contains(elsewhere);
    }

    @Test
    void revise_withinItsOwnFullWindow_isAllowedBecauseItDoesNotCountItself() {
        ScheduledMessage first = created(TestEvents.at(inAnHour()).channel("busy").build());
        created(TestEvents.at(inAnHour()).channel("busy").by(TestEvents.BOB).build());

        OwnerChangeResult edited = service.revise(new ReviseMessageCommand(TestEvents.ALICE, first.id(),
                TestEvents.at(inAnHour() + 1).channel("busy").content("edited").build(), Revision.FIRST));

        assertThat(edited).isInstanceOf(OwnerChangeResult.Done.class);
    }

    @Test
    void schedule_deletedChannel_refusesChannelNotFound() {
        store.addTombstone(new Channel("general"));

        ScheduleResult result = service.schedule(new ScheduleMessageCommand(TestEvents.ALICE,
                TestEvents.at(inAnHour()).build(), Optional.empty()));

        assertThat(result).isInstanceOfSatisfying(ScheduleResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.CHANNEL_NOT_FOUND));
    }

    @Test
    void revise_matchingRevision_storesNextRevisionAndHistory() {
        ScheduledMessage message = created(TestEvents.at(inAnHour()).build());
        NostrEvent edit = TestEvents.at(inAnHour() + 60).content("edited").build();

        OwnerChangeResult result = service.revise(new ReviseMessageCommand(TestEvents.ALICE, message.id(), edit,
                Revision.FIRST));

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.Done.class, done -> {
            assertThat(done.message().revision()).isEqualTo(new Revision(2));
            assertThat(done.message().event()).contains(edit);
            assertThat(done.message().dueAt()).isEqualTo(Instant.ofEpochSecond(inAnHour() + 60));
        });
        assertThat(store.revisions(message.id())).containsExactly(new Revision(1), new Revision(2));
    }

    @Test
    void revise_staleRevision_answersRevisionConflictAndChangesNothing() {
        ScheduledMessage message = created(TestEvents.at(inAnHour()).build());
        service.revise(new ReviseMessageCommand(TestEvents.ALICE, message.id(),
                TestEvents.at(inAnHour()).content("r2").build(), Revision.FIRST));

        OwnerChangeResult result = service.revise(new ReviseMessageCommand(TestEvents.ALICE, message.id(),
                TestEvents.at(inAnHour()).content("r3").build(), Revision.FIRST));

        assertThat(result).isEqualTo(new OwnerChangeResult.RevisionConflict(new Revision(2)));
        assertThat(store.revisions(message.id())).hasSize(2);
    }

    @Test
    void anyOwnerOperation_otherOwnersMessage_answersNotFound() {
        ScheduledMessage message = created(TestEvents.at(inAnHour()).build());
        ScheduleId id = message.id();

        assertThat(service.get(TestEvents.BOB, id)).isEmpty();
        assertThat(service.cancel(new CancelMessageCommand(TestEvents.BOB, id)))
                .isInstanceOf(OwnerChangeResult.NotFound.class);
        assertThat(service.sendNow(new SendNowCommand(TestEvents.BOB, id, Optional.empty())))
                .isInstanceOf(OwnerChangeResult.NotFound.class);
        assertThat(service.revise(new ReviseMessageCommand(TestEvents.BOB, id,
                TestEvents.at(inAnHour()).by(TestEvents.BOB).build(), Revision.FIRST)))
                .isInstanceOf(OwnerChangeResult.NotFound.class);
        assertThat(store.find(id)).contains(message);
    }

    @Test
    void cancel_twice_answersCancelledBothTimesAndPurgesEvent() {
        ScheduledMessage message = created(TestEvents.at(inAnHour()).build());

        OwnerChangeResult first = service.cancel(new CancelMessageCommand(TestEvents.ALICE, message.id()));
        OwnerChangeResult second = service.cancel(new CancelMessageCommand(TestEvents.ALICE, message.id()));

        assertThat(first).isInstanceOfSatisfying(OwnerChangeResult.Done.class, done -> {
            assertThat(done.message().state().wireName()).isEqualTo("cancelled");
            assertThat(done.message().event()).isEmpty();
        });
        assertThat(second).isEqualTo(first);
    }

    @Test
    void sendNow_storedEventFarAhead_answersResignRequired() {
        ScheduledMessage message = created(TestEvents.at(inAnHour()).build());

        OwnerChangeResult result = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(), Optional.empty()));

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.StateConflict.class,
                conflict -> assertThat(conflict.refusal()).isEqualTo(OwnerRefusal.RESIGN_REQUIRED));
    }

    @Test
    void sendNow_storedEventWithinWindow_makesItDueNow() {
        ScheduledMessage message = created(TestEvents.at(NOW.getEpochSecond() + 600).build());

        OwnerChangeResult result = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(), Optional.empty()));

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.Done.class,
                done -> assertThat(done.message().dueAt()).isEqualTo(NOW));
    }

    @Test
    void sendNow_newEventWithinWindow_storesNewRevisionDueNow() {
        ScheduledMessage message = created(TestEvents.at(inAnHour()).build());
        NostrEvent resigned = TestEvents.at(NOW.getEpochSecond()).content("now").build();

        OwnerChangeResult result = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(),
                Optional.of(resigned)));

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.Done.class, done -> {
            assertThat(done.message().revision()).isEqualTo(new Revision(2));
            assertThat(done.message().dueAt()).isEqualTo(NOW);
            assertThat(done.message().event()).contains(resigned);
        });
    }

    @Test
    void committedCreateEditAndSendNow_tellTheLocalDispatcherTheirDueTimes_refusalsReplaysAndCancelsDoNot() {
        NostrEvent event = TestEvents.at(NOW.getEpochSecond() + 600).build();
        ScheduledMessage message = created(event);
        service.schedule(new ScheduleMessageCommand(event.pubkey(), event, Optional.empty()));
        service.schedule(new ScheduleMessageCommand(event.pubkey(), TestEvents.at(NOW.getEpochSecond() - 1).build(),
                Optional.empty()));
        service.revise(new ReviseMessageCommand(TestEvents.ALICE, message.id(),
                TestEvents.at(NOW.getEpochSecond() + 700).content("edited").build(), Revision.FIRST));
        clock.advance(Duration.ofSeconds(5));
        service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(), Optional.empty()));
        ScheduledMessage other = created(TestEvents.at(NOW.getEpochSecond() + 800).content("other").build());
        service.cancel(new CancelMessageCommand(TestEvents.ALICE, other.id()));

        assertThat(notices).containsExactly(Instant.ofEpochSecond(NOW.getEpochSecond() + 600),
                Instant.ofEpochSecond(NOW.getEpochSecond() + 700), NOW.plusSeconds(5),
                Instant.ofEpochSecond(NOW.getEpochSecond() + 800));
    }
}

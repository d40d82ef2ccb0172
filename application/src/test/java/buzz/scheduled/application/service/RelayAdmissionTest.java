package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
import buzz.scheduled.application.fakes.ScriptedAccessPolicy;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.ReviseMessageUseCase.ReviseMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.in.SendNowUseCase.SendNowCommand;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.RelayLimits.Limitation;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Admission against the relay's NIP-11 limitation, as {@link OwnerMessagesService} reads it on every request. */
class RelayAdmissionTest {
    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);

    private final SettableClock clock = new SettableClock(NOW);
    private final InMemoryOwnerMessages store = new InMemoryOwnerMessages(clock);
    private final AtomicReference<Limitation> relayLimits = new AtomicReference<>(Limitation.NONE);
    private final OwnerMessagesService service = new OwnerMessagesService(store, store, store,
            new FakeEventSignatures(), new ScriptedAccessPolicy(), new SequentialScheduleIds(), clock,
            DueWorkNotice.NONE, new SchedulingSettings(
                    new AdmissionRules(AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES,
                            Duration.ofDays(120)),
                    new MessageAdmission.CreateLimits(100, 30, Duration.ofMinutes(5)), Duration.ofSeconds(900)),
            relayLimits::get);

    private static Limitation messageAndContent(Integer maxMessage, Integer maxContent) {
        return new Limitation(maxMessage == null ? OptionalInt.empty() : OptionalInt.of(maxMessage),
                maxContent == null ? OptionalInt.empty() : OptionalInt.of(maxContent), OptionalInt.empty(),
                OptionalLong.empty(), OptionalLong.empty());
    }

    private static Limitation createdAtWindow(long lower, long upper) {
        return new Limitation(OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(), OptionalLong.of(lower),
                OptionalLong.of(upper));
    }

    private ScheduleResult schedule(NostrEvent event) {
        return service.schedule(new ScheduleMessageCommand(event.pubkey(), event, Optional.empty()));
    }

    private ScheduledMessage created(NostrEvent event) {
        ScheduleResult result = schedule(event);
        assertThat(result).isInstanceOf(ScheduleResult.Created.class);
        return ((ScheduleResult.Created) result).message();
    }

    private static NostrEvent inAnHour(String content) {
        return TestEvents.at(NOW.getEpochSecond() + 3600).content(content).build();
    }

    @Test
    void schedule_contentOverTheRelaysMaxContentLength_isTooLargeNamingTheLimitAndStoresNothing() {
        relayLimits.set(messageAndContent(null, 10));

        ScheduleResult result = schedule(inAnHour("é".repeat(6)));

        assertThat(result).isEqualTo(new ScheduleResult.Refused(new Refusal(RefusalCode.TOO_LARGE,
                "content is 12 bytes; the relay accepts at most 10 bytes of content (its NIP-11 max_content_length)")));
        assertThat(store.size()).isZero();
    }

    @Test
    void schedule_eventMessageOneByteOverMaxMessageLength_isTooLarge_andExactlyAtItIsAdmitted() {
        NostrEvent event = inAnHour("x".repeat(500));
        long bytes = RelayAdmission.eventMessageBytes(event);
        relayLimits.set(messageAndContent((int) bytes - 1, null));

        ScheduleResult over = schedule(event);
        relayLimits.set(messageAndContent((int) bytes, null));
        ScheduleResult at = schedule(event);

        assertThat(bytes).isEqualTo(("[\"EVENT\"," + buzz.scheduled.domain.nostr.NostrEventJson.write(event) + "]")
                .length());
        assertThat(over).isEqualTo(new ScheduleResult.Refused(new Refusal(RefusalCode.TOO_LARGE,
                "the event's [\"EVENT\",…] message is " + bytes + " bytes; the relay accepts messages of at most "
                        + (bytes - 1) + " bytes (its NIP-11 max_message_length)")));
        assertThat(at).isInstanceOf(ScheduleResult.Created.class);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void schedule_moreTagsThanTheRelaysMaxEventTags_isTooLargeNamingTheLimit_andAtTheLimitIsAdmitted() {
        relayLimits.set(Limitation.NONE.withMaxEventTags(OptionalInt.of(3)));
        NostrEvent three = TestEvents.at(NOW.getEpochSecond() + 3600).tag("t", "a").tag("t", "b").build();
        NostrEvent four = TestEvents.at(NOW.getEpochSecond() + 3600).tag("t", "a").tag("t", "b").tag("t", "c")
                .build();

        ScheduleResult over = schedule(four);
        ScheduleResult at = schedule(three);

        assertThat(over).isEqualTo(new ScheduleResult.Refused(new Refusal(RefusalCode.TOO_LARGE,
                "the event has 4 tags; the relay accepts at most 3 tags (its NIP-11 max_event_tags)")));
        assertThat(at).isInstanceOf(ScheduleResult.Created.class);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void schedule_relayStatesZeroForEveryLimit_isNoLimitAtAll() {
        relayLimits.set(new Limitation(OptionalInt.of(0), OptionalInt.of(0), OptionalInt.of(0), OptionalLong.of(0),
                OptionalLong.of(0), OptionalInt.of(0), OptionalInt.of(0), false, false));

        ScheduleResult result = schedule(inAnHour("x".repeat(1000)));

        assertThat(result).isInstanceOf(ScheduleResult.Created.class);
        assertThat(relayLimits.get()).isEqualTo(Limitation.NONE);
    }

    @Test
    void schedule_lessProofOfWorkThanTheRelaysMinimum_isPowTooLowNamingBoth_andEnoughIsAdmitted() {
        relayLimits.set(Limitation.NONE.withMinPowDifficulty(OptionalInt.of(12)));
        NostrEvent eleven = TestEvents.at(NOW.getEpochSecond() + 3600).id("001" + "f".repeat(61)).build();
        NostrEvent twelve = TestEvents.at(NOW.getEpochSecond() + 3600).id("000f" + "f".repeat(60)).build();

        ScheduleResult low = schedule(eleven);
        ScheduleResult enough = schedule(twelve);

        assertThat(low).isEqualTo(new ScheduleResult.Refused(new Refusal(RefusalCode.POW_TOO_LOW,
                "the event's id has 11 leading zero bits (NIP-13 proof of work); the relay requires at least 12 (its"
                        + " NIP-11 min_pow_difficulty): mine the event to that difficulty before signing it")));
        assertThat(enough).isInstanceOf(ScheduleResult.Created.class);
    }

    @Test
    void schedule_enoughZeroBitsButACommittedTargetBelowTheRelaysMinimum_isPowTooLow() {
        relayLimits.set(Limitation.NONE.withMinPowDifficulty(OptionalInt.of(12)));
        NostrEvent lucky = TestEvents.at(NOW.getEpochSecond() + 3600).tag("nonce", "42", "8")
                .id("0000" + "f".repeat(60)).build();

        ScheduleResult result = schedule(lucky);

        assertThat(result).isInstanceOfSatisfying(ScheduleResult.Refused.class, refused -> {
            assertThat(refused.refusal().code()).isEqualTo(RefusalCode.POW_TOO_LOW);
            assertThat(refused.refusal().message()).contains("16 leading zero bits")
                    .contains("commits to a target of 8").contains("at least 12");
        });
        assertThat(store.size()).isZero();
    }

    @Test
    void schedule_relayRequiresAuthAndRestrictsWrites_refusesNothingItCannotCheck() {
        relayLimits.set(Limitation.NONE.withWriteConditions(true, true));

        assertThat(schedule(inAnHour("hello"))).isInstanceOf(ScheduleResult.Created.class);
    }

    @Test
    void revise_toAnEventTheRelayWouldRefuse_isTooLargeAndKeepsTheStoredRevision() {
        ScheduledMessage message = created(inAnHour("short"));
        relayLimits.set(messageAndContent(null, 10));

        OwnerChangeResult result = service.revise(new ReviseMessageCommand(TestEvents.ALICE, message.id(),
                inAnHour("much longer than ten bytes"), Revision.FIRST));

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.TOO_LARGE));
        assertThat(store.find(message.id())).contains(message);
    }

    @Test
    void schedule_farBeyondTheRelaysCreatedAtUpperLimit_isAdmittedBecauseItIsPublishedAtItsDueTime() {
        relayLimits.set(createdAtWindow(60, 60));

        assertThat(schedule(inAnHour("next hour"))).isInstanceOf(ScheduleResult.Created.class);
    }

    @Test
    void sendNow_storedEventWithinTheConfiguredWindowButBeyondTheRelaysUpperLimit_requiresResigningNamingIt() {
        ScheduledMessage message = created(TestEvents.at(NOW.getEpochSecond() + 600).build());
        relayLimits.set(createdAtWindow(900, 300));

        OwnerChangeResult result = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(), Optional.empty()));

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.StateConflict.class, conflict -> {
            assertThat(conflict.refusal()).isEqualTo(OwnerRefusal.RESIGN_REQUIRED);
            assertThat(conflict.message()).contains("300 s either way, the relay's NIP-11 created_at_upper_limit");
        });
        assertThat(store.find(message.id())).contains(message);
    }

    @Test
    void sendNow_storedEventWithinBothWindows_makesItDueNow() {
        ScheduledMessage message = created(TestEvents.at(NOW.getEpochSecond() + 200).build());
        relayLimits.set(createdAtWindow(900, 300));

        OwnerChangeResult result = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(), Optional.empty()));

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.Done.class,
                done -> assertThat(done.message().dueAt()).isEqualTo(NOW));
    }

    @Test
    void sendNow_newEventBeyondTheRelaysWindow_isTimeTooFarOrTimeInPastNamingTheRelayLimit() {
        ScheduledMessage message = created(inAnHour("later"));
        relayLimits.set(createdAtWindow(30, 120));
        NostrEvent ahead = TestEvents.at(NOW.getEpochSecond() + 121).content("ahead").build();
        NostrEvent behind = TestEvents.at(NOW.getEpochSecond() - 31).content("behind").build();

        OwnerChangeResult tooFar = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(), Optional.of(ahead)));
        OwnerChangeResult inPast = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(), Optional.of(behind)));

        assertThat(tooFar).isEqualTo(new OwnerChangeResult.Refused(new Refusal(RefusalCode.TIME_TOO_FAR,
                "created_at " + ahead.createdAt() + " is 121 s ahead of now (" + NOW.getEpochSecond() + "); an event"
                        + " sent now may be at most 120 s ahead (the relay's NIP-11 created_at_upper_limit)")));
        assertThat(inPast).isEqualTo(new OwnerChangeResult.Refused(new Refusal(RefusalCode.TIME_IN_PAST,
                "created_at " + behind.createdAt() + " is 31 s behind now (" + NOW.getEpochSecond() + "); an event"
                        + " sent now may be at most 30 s behind (the relay's NIP-11 created_at_lower_limit)")));
        assertThat(store.find(message.id())).contains(message);
    }

    @Test
    void sendNow_relayLowerLimitZero_isNoLimit_soTheConfiguredWindowApplies() {
        ScheduledMessage message = created(inAnHour("later"));
        relayLimits.set(createdAtWindow(0, 900));
        NostrEvent behind = TestEvents.at(NOW.getEpochSecond() - 60).content("a minute ago").build();

        OwnerChangeResult result = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(),
                Optional.of(behind)));

        assertThat(result).isNotInstanceOf(OwnerChangeResult.Refused.class);
    }

    @Test
    void sendNow_newEventBeyondTheConfiguredWindow_isTimeTooFarNamingTheVariable() {
        ScheduledMessage message = created(inAnHour("later"));
        NostrEvent ahead = TestEvents.at(NOW.getEpochSecond() + 901).content("ahead").build();

        OwnerChangeResult result = service.sendNow(new SendNowCommand(TestEvents.ALICE, message.id(), Optional.of(ahead)));

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.Refused.class, refused -> {
            assertThat(refused.refusal().code()).isEqualTo(RefusalCode.TIME_TOO_FAR);
            assertThat(refused.refusal().message()).endsWith("at most 900 s ahead (BUZZ_RELAY_MAX_FUTURE_SECONDS)");
        });
    }

    @Test
    void schedule_afterTheRelaysLimitsChange_readsTheCurrentOnes() {
        assertThat(schedule(inAnHour("twenty bytes of text"))).isInstanceOf(ScheduleResult.Created.class);

        relayLimits.set(messageAndContent(null, 10));

        assertThat(schedule(inAnHour("twenty bytes of text!"))).isInstanceOfSatisfying(ScheduleResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.TOO_LARGE));
        assertThat(store.size()).isEqualTo(1);
    }
}

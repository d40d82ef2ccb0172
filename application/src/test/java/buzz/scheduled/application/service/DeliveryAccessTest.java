package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.InMemoryChannelAdministration;
import buzz.scheduled.application.fakes.InMemoryScheduleStore;
import buzz.scheduled.application.fakes.ScriptedAccessPolicy;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.DeliveryUseCase.ClaimedWork;
import buzz.scheduled.application.port.in.DeliveryUseCase.GateResult;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.application.port.out.ChannelAdministration.ChannelDeleted;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.ScheduleStore;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Backoff;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Access at admission and again in the fenced pre-send step, and deletion's effect on both (SPEC §3.1, §3.6,
 * §3.9; SCENARIOS F15), over the in-memory fakes.
 */
class DeliveryAccessTest {
    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);
    private static final Channel GENERAL = new Channel("general");

    private final SettableClock clock = new SettableClock(NOW);
    private final InMemoryScheduleStore store = new InMemoryScheduleStore(clock);
    private final ScriptedAccessPolicy access = new ScriptedAccessPolicy();
    private final DeletionService deletion = new DeletionService(new InMemoryChannelAdministration(store));
    private final OwnerMessagesService owners = new OwnerMessagesService(store, new FakeEventSignatures(), access,
            new SequentialScheduleIds(), clock, DueWorkNotice.NONE, new SchedulingSettings(
                    new AdmissionRules(AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES,
                            Duration.ofDays(120)),
                    new ScheduleStore.CreateLimits(100, 30, Duration.ofMinutes(5)), Duration.ofSeconds(900)));
    private final DeliveryService delivery = new DeliveryService(store, access, new DeliverySettings(
            Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(5),
            Duration.ofSeconds(900), new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), () -> 0.0)));

    private ScheduledMessage scheduledInAMinute() {
        NostrEvent event = TestEvents.at(NOW.getEpochSecond() + 60).build();
        ScheduleResult result = owners.schedule(new ScheduleMessageCommand(TestEvents.ALICE, event, Optional.empty()));
        assertThat(result).isInstanceOf(ScheduleResult.Created.class);
        return ((ScheduleResult.Created) result).message();
    }

    private ClaimedWork claimTheOnlyDueMessage() {
        List<ClaimedWork> claimed = delivery.claimDue(10);
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    private ScheduledMessage stored(ScheduledMessage message) {
        return store.find(message.id()).orElseThrow();
    }

    @Test
    void startSending_ownerLostAccessBeforeDueTime_failsAccessDeniedAndIsNeverRetried() {
        ScheduledMessage message = scheduledInAMinute();
        access.set(TestEvents.ALICE, GENERAL,
                new AccessDecision.Denied(RefusalCode.NOT_IN_CHANNEL, "alice is no longer a member of general"));
        clock.advance(Duration.ofSeconds(61));

        GateResult gate = delivery.startSending(claimTheOnlyDueMessage());
        access.set(TestEvents.ALICE, GENERAL, new AccessDecision.Allowed());
        clock.advance(Duration.ofHours(1));

        assertThat(gate).isInstanceOf(GateResult.Ended.class);
        assertThat(stored(message).failureReason()).contains(FailureReason.ACCESS_DENIED);
        assertThat(stored(message).event()).isEmpty();
        assertThat(delivery.claimDue(10)).isEmpty();
        assertThat(delivery.nextDueAt()).isEmpty();
    }

    @Test
    void startSending_accessUnavailable_defersWithoutSendingAndSendsOnceItAnswersAgain() {
        ScheduledMessage message = scheduledInAMinute();
        access.set(TestEvents.ALICE, GENERAL, new AccessDecision.Unavailable("relay unreachable"));
        clock.advance(Duration.ofSeconds(61));

        GateResult deferred = delivery.startSending(claimTheOnlyDueMessage());
        ScheduledMessage afterDeferral = stored(message);
        access.set(TestEvents.ALICE, GENERAL, new AccessDecision.Allowed());
        clock.set(((ScheduleState.Scheduled) afterDeferral.state()).retryAt().orElseThrow());
        GateResult retried = delivery.startSending(claimTheOnlyDueMessage());

        assertThat(deferred).isEqualTo(new GateResult.Deferred("relay unreachable"));
        assertThat(afterDeferral.state().wireName()).isEqualTo("scheduled");
        assertThat(retried).isInstanceOf(GateResult.Send.class);
        assertThat(stored(message).state().wireName()).isEqualTo("sending");
    }

    @Test
    void startSending_allowed_sendsTheStoredEvent() {
        ScheduledMessage message = scheduledInAMinute();
        clock.advance(Duration.ofSeconds(61));

        GateResult gate = delivery.startSending(claimTheOnlyDueMessage());

        assertThat(gate).isInstanceOfSatisfying(GateResult.Send.class,
                send -> assertThat(send.event()).isEqualTo(message.event().orElseThrow()));
    }

    @Test
    void deleteChannel_beforeDueTime_failsTheMessageNothingIsClaimedAndAdmissionAnswersChannelNotFound() {
        ScheduledMessage message = scheduledInAMinute();

        ChannelDeleted deleted = deletion.deleteChannel(GENERAL);
        clock.advance(Duration.ofSeconds(61));
        ScheduleResult later = owners.schedule(new ScheduleMessageCommand(TestEvents.ALICE,
                TestEvents.at(NOW.getEpochSecond() + 3600).build(), Optional.empty()));

        assertThat(deleted).isEqualTo(new ChannelDeleted(1, 1, 0, true));
        assertThat(stored(message).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(stored(message).event()).isEmpty();
        assertThat(delivery.claimDue(10)).isEmpty();
        assertThat(later).isInstanceOfSatisfying(ScheduleResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.CHANNEL_NOT_FOUND));
    }

    @Test
    void startSending_inFlightWhenChannelWasDeletedAndRetried_failsChannelDeletedInsteadOfSending() {
        ScheduledMessage message = scheduledInAMinute();
        clock.advance(Duration.ofSeconds(61));
        ClaimedWork first = claimTheOnlyDueMessage();
        assertThat(delivery.startSending(first)).isInstanceOf(GateResult.Send.class);

        ChannelDeleted deleted = deletion.deleteChannel(GENERAL);
        assertThat(delivery.retryLater(first, "relay timed out")).isTrue();
        clock.advance(Duration.ofMinutes(2));
        GateResult retried = delivery.startSending(claimTheOnlyDueMessage());

        assertThat(deleted.inFlight()).isEqualTo(1);
        assertThat(retried).isInstanceOf(GateResult.Ended.class);
        assertThat(stored(message).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(stored(message).event()).isEmpty();
    }

    @Test
    void startSending_claimRevokedByMemberRemoval_isDroppedAndSendsNothing() {
        ScheduledMessage message = scheduledInAMinute();
        clock.advance(Duration.ofSeconds(61));
        ClaimedWork claimed = claimTheOnlyDueMessage();

        deletion.removeMember(GENERAL, TestEvents.ALICE);
        GateResult gate = delivery.startSending(claimed);

        assertThat(gate).isInstanceOf(GateResult.Dropped.class);
        assertThat(stored(message).failureReason()).contains(FailureReason.MEMBER_REMOVED);
    }
}

package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
import buzz.scheduled.application.fakes.ScriptedAccessPolicy;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.OperatorCancelUseCase.OperatorCancelCommand;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.RequeueMessageUseCase.RequeueMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * An operator's cancel and requeue over the in-memory store: what the domain allows is written, what it refuses
 * leaves the row as it was, and a requeued message is due again with the owner's own signed event.
 */
class OperatorActionsServiceTest {
    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);
    private static final Duration LATENESS = Duration.ofSeconds(900);
    private static final PublicKey OPERATOR = new PublicKey("0c".repeat(32));

    private final SettableClock clock = new SettableClock(NOW);
    private final InMemoryOwnerMessages store = new InMemoryOwnerMessages(clock);
    private final List<Instant> notices = new CopyOnWriteArrayList<>();
    private final SchedulingSettings settings = new SchedulingSettings(
            new AdmissionRules(AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES,
                    Duration.ofDays(120)),
            new MessageAdmission.CreateLimits(10, 5, Duration.ofMinutes(5)), Duration.ofSeconds(900));
    private final OwnerMessagesService owners = new OwnerMessagesService(store, store, store,
            new FakeEventSignatures(), new ScriptedAccessPolicy(), new SequentialScheduleIds(), clock, at -> {
            }, settings);
    private final OperatorActionsService operators = new OperatorActionsService(store, store, clock, notices::add,
            settings, LATENESS);

    @Test
    void requeue_failedRelayRejected_isDueAgainWithTheOwnersEventSameRevisionAndDueTime() {
        ScheduledMessage failed = failed(FailureReason.RELAY_REJECTED, Duration.ofMinutes(5));

        OwnerChangeResult result = operators.requeue(new RequeueMessageCommand(OPERATOR, failed.id(),
                Optional.of(Revision.FIRST)));

        ScheduledMessage stored = store.find(failed.id()).orElseThrow();
        assertThat(result).isEqualTo(new OwnerChangeResult.Done(stored));
        assertThat(stored.state()).isEqualTo(ScheduleState.Scheduled.NOW);
        assertThat(stored.event()).isEqualTo(failed.event()).isPresent();
        assertThat(stored.revision()).isEqualTo(Revision.FIRST);
        assertThat(stored.dueAt()).isEqualTo(failed.dueAt());
        assertThat(stored.attempts()).isEqualTo(failed.attempts());
        assertThat(notices).as("the dispatcher is told").containsExactly(failed.dueAt());
    }

    @Test
    void requeue_refusals_leaveTheRowAsItWas() {
        ScheduledMessage tooOld = failed(FailureReason.EXPIRED, LATENESS.plusSeconds(1));
        ScheduledMessage purged = failed(FailureReason.MEMBER_REMOVED, Duration.ofMinutes(1));
        ScheduledMessage newer = failed(FailureReason.ACCESS_DENIED, Duration.ofMinutes(1));
        ScheduledMessage pending = scheduled(TestEvents.ALICE, NOW.plusSeconds(3600));

        assertThat(requeue(tooOld, Optional.empty())).isInstanceOfSatisfying(OwnerChangeResult.StateConflict.class,
                conflict -> {
                    assertThat(conflict.refusal()).isEqualTo(OwnerRefusal.RESIGN_REQUIRED);
                    assertThat(conflict.message()).contains("BUZZ_MAX_LATENESS_SECONDS = 900 s")
                            .contains("only its owner can sign it again");
                });
        assertThat(requeue(purged, Optional.empty())).isInstanceOfSatisfying(OwnerChangeResult.StateConflict.class,
                conflict -> assertThat(conflict.refusal()).isEqualTo(OwnerRefusal.EVENT_PURGED));
        assertThat(requeue(newer, Optional.of(new Revision(2))))
                .isEqualTo(new OwnerChangeResult.RevisionConflict(Revision.FIRST));
        assertThat(requeue(pending, Optional.empty())).isInstanceOfSatisfying(OwnerChangeResult.StateConflict.class,
                conflict -> assertThat(conflict.refusal()).isEqualTo(OwnerRefusal.NOT_FAILED));
        assertThat(operators.requeue(new RequeueMessageCommand(OPERATOR, new ScheduleId(UUID.randomUUID()),
                Optional.empty()))).isEqualTo(new OwnerChangeResult.NotFound());
        for (ScheduledMessage message : List.of(tooOld, purged, newer, pending)) {
            assertThat(store.find(message.id())).as("unchanged").contains(message);
        }
        assertThat(notices).isEmpty();
    }

    @Test
    void requeue_channelDeletedSinceItFailed_isRefusedChannelNotFound() {
        ScheduledMessage failed = failed(FailureReason.RELAY_REJECTED, Duration.ofMinutes(1));
        store.addTombstone(failed.channel());

        OwnerChangeResult result = requeue(failed, Optional.empty());

        assertThat(result).isInstanceOfSatisfying(OwnerChangeResult.Refused.class,
                refused -> assertThat(refused.refusal().code()).isEqualTo(RefusalCode.CHANNEL_NOT_FOUND));
        assertThat(store.find(failed.id())).contains(failed);
    }

    @Test
    void cancel_anyOwnersPendingMessage_isCancelledAndItsEventDropped_andSendingIsRefused() {
        ScheduledMessage bobs = scheduled(TestEvents.BOB, NOW.plusSeconds(3600));
        ScheduledMessage sending = inState(scheduled(TestEvents.ALICE, NOW.plusSeconds(60)),
                ScheduleState.Fields.of(StateName.SENDING)
                        .withClaim(new FencingToken(5), NOW.plusSeconds(60)), NOW.plusSeconds(60));

        OwnerChangeResult cancelled = operators.cancel(new OperatorCancelCommand(OPERATOR, bobs.id()));
        OwnerChangeResult again = operators.cancel(new OperatorCancelCommand(OPERATOR, bobs.id()));
        OwnerChangeResult refused = operators.cancel(new OperatorCancelCommand(OPERATOR, sending.id()));

        ScheduledMessage stored = store.find(bobs.id()).orElseThrow();
        assertThat(stored.state().wireName()).isEqualTo("cancelled");
        assertThat(stored.event()).isEmpty();
        assertThat(cancelled).isEqualTo(new OwnerChangeResult.Done(stored)).isEqualTo(again);
        assertThat(refused).isInstanceOfSatisfying(OwnerChangeResult.StateConflict.class,
                conflict -> assertThat(conflict.refusal()).isEqualTo(OwnerRefusal.DISPATCHING));
        assertThat(store.find(sending.id())).contains(sending);
    }

    private OwnerChangeResult requeue(ScheduledMessage message, Optional<Revision> ifMatch) {
        return operators.requeue(new RequeueMessageCommand(OPERATOR, message.id(), ifMatch));
    }

    private ScheduledMessage scheduled(PublicKey author, Instant due) {
        ScheduleResult result = owners.schedule(new ScheduleMessageCommand(author,
                TestEvents.at(due.getEpochSecond()).by(author).build(), Optional.empty()));
        assertThat(result).isInstanceOf(ScheduleResult.Created.class);
        return ((ScheduleResult.Created) result).message();
    }

    /** Alice's message, due {@code ago} before now, failed for {@code reason} with one attempt. */
    private ScheduledMessage failed(FailureReason reason, Duration ago) {
        ScheduledMessage created = scheduled(TestEvents.ALICE, NOW.plusSeconds(60));
        return inState(created, ScheduleState.Fields.of(StateName.FAILED).withReason(reason).withFinishedAt(NOW),
                NOW.minus(ago));
    }

    /**
     * {@code created} put in the state {@code fields} describe, due at {@code due}, as the delivery side would leave
     * it (its payload where that state keeps it, one attempt).
     */
    private ScheduledMessage inState(ScheduledMessage created, ScheduleState.Fields fields, Instant due) {
        ScheduleState state = ScheduleState.of(fields);
        ScheduledMessage next = new ScheduledMessage(created.id(), created.owner(), created.channel(),
                created.revision(), created.eventId(), due, state.keepsEvent() ? created.event() : Optional.empty(),
                state, 1, created.createdAt(), NOW);
        assertThat(store.replace(created, next)).isTrue();
        return store.find(created.id()).orElseThrow();
    }
}

package buzz.scheduled.domain.schedule;

import static buzz.scheduled.domain.schedule.MessageFixture.ADMITTED;
import static buzz.scheduled.domain.schedule.MessageFixture.DUE;
import static buzz.scheduled.domain.schedule.MessageFixture.EARLIER;
import static buzz.scheduled.domain.schedule.MessageFixture.ID;
import static buzz.scheduled.domain.schedule.MessageFixture.NOW;
import static buzz.scheduled.domain.schedule.MessageFixture.ORIGINAL;
import static buzz.scheduled.domain.schedule.MessageFixture.RELAY_WINDOW;
import static buzz.scheduled.domain.schedule.MessageFixture.TOKEN;
import static buzz.scheduled.domain.schedule.MessageFixture.changed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.AdmissionRules.Timing;
import buzz.scheduled.domain.schedule.ScheduleState.Cancelled;
import buzz.scheduled.domain.schedule.ScheduleState.Claimed;
import buzz.scheduled.domain.schedule.ScheduleState.Failed;
import buzz.scheduled.domain.schedule.ScheduleState.Published;
import buzz.scheduled.domain.schedule.ScheduleState.Scheduled;
import buzz.scheduled.domain.schedule.ScheduleState.Sending;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The aggregate's own invariants, accessors and send-now rules (docs/delivery.md, docs/openapi.yaml
 * {@code sendScheduledMessageNow}).
 */
class ScheduledMessageTest {

    private static final Channel GENERAL = new Channel(EventFixture.CHANNEL);

    private record Fields(ScheduleId id, buzz.scheduled.domain.nostr.PublicKey owner, Channel channel,
                          Revision revision, buzz.scheduled.domain.nostr.EventId eventId, Instant dueAt,
                          Optional<NostrEvent> event, ScheduleState state, Instant createdAt, Instant updatedAt) {
        ScheduledMessage build() {
            return new ScheduledMessage(id, owner, channel, revision, eventId, dueAt, event, state, 0, createdAt,
                    updatedAt);
        }
    }

    private static Fields valid() {
        return new Fields(ID, EventFixture.OWNER, GENERAL, Revision.FIRST, ORIGINAL.id(), DUE, Optional.of(ORIGINAL),
                Scheduled.NOW, ADMITTED, ADMITTED);
    }

    static Stream<Arguments> missingFields() {
        return Stream.of(
                missing("id", f -> new Fields(null, f.owner(), f.channel(), f.revision(), f.eventId(), f.dueAt(),
                        f.event(), f.state(), f.createdAt(), f.updatedAt())),
                missing("owner", f -> new Fields(f.id(), null, f.channel(), f.revision(), f.eventId(), f.dueAt(),
                        f.event(), f.state(), f.createdAt(), f.updatedAt())),
                missing("channel", f -> new Fields(f.id(), f.owner(), null, f.revision(), f.eventId(), f.dueAt(),
                        f.event(), f.state(), f.createdAt(), f.updatedAt())),
                missing("revision", f -> new Fields(f.id(), f.owner(), f.channel(), null, f.eventId(), f.dueAt(),
                        f.event(), f.state(), f.createdAt(), f.updatedAt())),
                missing("eventId", f -> new Fields(f.id(), f.owner(), f.channel(), f.revision(), null, f.dueAt(),
                        f.event(), f.state(), f.createdAt(), f.updatedAt())),
                missing("dueAt", f -> new Fields(f.id(), f.owner(), f.channel(), f.revision(), f.eventId(), null,
                        f.event(), f.state(), f.createdAt(), f.updatedAt())),
                missing("event", f -> new Fields(f.id(), f.owner(), f.channel(), f.revision(), f.eventId(), f.dueAt(),
                        null, f.state(), f.createdAt(), f.updatedAt())),
                missing("state", f -> new Fields(f.id(), f.owner(), f.channel(), f.revision(), f.eventId(), f.dueAt(),
                        f.event(), null, f.createdAt(), f.updatedAt())),
                missing("createdAt", f -> new Fields(f.id(), f.owner(), f.channel(), f.revision(), f.eventId(),
                        f.dueAt(), f.event(), f.state(), null, f.updatedAt())),
                missing("updatedAt", f -> new Fields(f.id(), f.owner(), f.channel(), f.revision(), f.eventId(),
                        f.dueAt(), f.event(), f.state(), f.createdAt(), null)));
    }

    private static Arguments missing(String field, Function<Fields, Fields> without) {
        return Arguments.of(field, without);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("missingFields")
    void construct_withAFieldMissing_namesTheField(String field, Function<Fields, Fields> without) {
        Fields fields = without.apply(valid());

        assertThatThrownBy(fields::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(": " + field + " is missing");
    }

    @Test
    void construct_withNegativeAttempts_namesTheValue() {
        assertThatThrownBy(() -> new ScheduledMessage(ID, EventFixture.OWNER, GENERAL, Revision.FIRST, ORIGINAL.id(),
                DUE, Optional.of(ORIGINAL), Scheduled.NOW, -1, ADMITTED, ADMITTED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("attempts")
                .hasMessageContaining("-1");
    }

    @Test
    void construct_withEventOfAnotherId_namesBothIds() {
        NostrEvent other = EventFixture.event().content("something else").build();

        assertThatThrownBy(() -> new ScheduledMessage(ID, EventFixture.OWNER, GENERAL, Revision.FIRST, ORIGINAL.id(),
                DUE, Optional.of(other), Scheduled.NOW, 0, ADMITTED, ADMITTED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(other.id().hex())
                .hasMessageContaining(ORIGINAL.id().hex());
    }

    @Test
    void construct_withEventOfAnotherAuthor_namesBothKeys() {
        NostrEvent strangers = EventFixture.event().pubkey(EventFixture.STRANGER).build();

        assertThatThrownBy(() -> new ScheduledMessage(ID, EventFixture.OWNER, GENERAL, Revision.FIRST,
                strangers.id(), DUE, Optional.of(strangers), Scheduled.NOW, 0, ADMITTED, ADMITTED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(EventFixture.STRANGER.hex())
                .hasMessageContaining(EventFixture.OWNER.hex());
    }

    static Stream<ScheduleState> nonTerminalStates() {
        return Stream.of(Scheduled.NOW, new Claimed(TOKEN, NOW), new Sending(TOKEN, NOW));
    }

    @ParameterizedTest
    @MethodSource("nonTerminalStates")
    void construct_nonTerminalWithoutEvent_isRejectedNamingTheState(ScheduleState state) {
        assertThatThrownBy(() -> MessageFixture.purgedIn(state, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("purged")
                .hasMessageContaining(state.wireName());
    }

    static Stream<ScheduleState> terminalStates() {
        return Stream.of(new Published(EARLIER), new Cancelled(EARLIER),
                new Failed(FailureReason.ACCESS_DENIED, EARLIER));
    }

    @ParameterizedTest
    @MethodSource("terminalStates")
    void construct_terminalWithoutEvent_keepsTheMetadata(ScheduleState state) {
        ScheduledMessage purged = MessageFixture.purgedIn(state, 1);

        assertThat(purged.event()).isEmpty();
        assertThat(purged.eventId()).isEqualTo(ORIGINAL.id());
        assertThat(purged.state().terminal()).isTrue();
    }

    @Test
    void admit_newAdmission_isRevisionOneDueAtCreatedAt() {
        Instant admittedAt = DUE.minusSeconds(3600);
        Admission admission = MessageFixture.admitted(ORIGINAL, Timing.FUTURE, admittedAt);

        ScheduledMessage message = ScheduledMessage.admit(ID, admission, admittedAt);

        assertThat(message).isEqualTo(new ScheduledMessage(ID, EventFixture.OWNER, GENERAL, Revision.FIRST,
                ORIGINAL.id(), DUE, Optional.of(ORIGINAL), Scheduled.NOW, 0, admittedAt, admittedAt));
    }

    @Test
    void accessors_eachState_answerOnlyForTheirState() {
        assertThat(MessageFixture.scheduled().token()).isEmpty();
        assertThat(MessageFixture.claimed().token()).contains(TOKEN);
        assertThat(MessageFixture.sending().token()).contains(TOKEN);
        ScheduledMessage published = MessageFixture.in(new Published(EARLIER), 1);
        assertThat(published.token()).isEmpty();
        assertThat(published.publishedAt()).contains(EARLIER);
        assertThat(published.failureReason()).isEmpty();
        ScheduledMessage failed = MessageFixture.purgedIn(new Failed(FailureReason.MEMBER_REMOVED, EARLIER), 1);
        assertThat(failed.failureReason()).contains(FailureReason.MEMBER_REMOVED);
        assertThat(failed.publishedAt()).isEmpty();
        assertThat(failed.token()).isEmpty();
        assertThat(MessageFixture.purgedIn(new Cancelled(EARLIER), 0).token()).isEmpty();
    }

    @Test
    void sendNowStored_beforeDueTime_makesItDueNow() {
        Instant early = DUE.minus(RELAY_WINDOW);

        ScheduledMessage due = changed(MessageFixture.scheduled().sendNow(RELAY_WINDOW, early));

        assertThat(due.dueAt()).isEqualTo(early);
        assertThat(due.revision()).isEqualTo(Revision.FIRST);
        assertThat(due.event()).contains(ORIGINAL);
        assertThat(due.state()).isEqualTo(Scheduled.NOW);
    }

    @Test
    void sendNowStored_createdAtOutsideTheRelayWindow_requiresResigning() {
        Instant tooEarly = DUE.minus(RELAY_WINDOW).minusSeconds(1);
        Instant tooLate = DUE.plus(RELAY_WINDOW).plusSeconds(1);

        assertThat(MessageFixture.scheduled().sendNow(RELAY_WINDOW, tooEarly))
                .isEqualTo(new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED));
        assertThat(MessageFixture.scheduled().sendNow(RELAY_WINDOW, tooLate))
                .isEqualTo(new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED));
        assertThat(MessageFixture.claimed().sendNow(RELAY_WINDOW, tooLate))
                .isEqualTo(new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED));
    }

    @Test
    void sendNowStored_duringARetryDelay_dropsTheDelay() {
        ScheduledMessage waiting = MessageFixture.in(new Scheduled(Optional.of(NOW.plusSeconds(300))), 1);

        ScheduledMessage now = changed(waiting.sendNow(RELAY_WINDOW, NOW));

        assertThat(now.state()).isEqualTo(Scheduled.NOW);
        assertThat(now.dueAt()).isEqualTo(DUE);
    }

    @Test
    void sendNowWithEvent_signedOutsideTheRelayWindow_requiresResigning() {
        Instant at = DUE.minusSeconds(3600);
        NostrEvent stale = EventFixture.event().createdAt(at.minus(RELAY_WINDOW).minusSeconds(1).getEpochSecond())
                .content("stale").build();
        Admission admission = MessageFixture.admitted(stale, Timing.IMMEDIATE, at);

        assertThat(MessageFixture.scheduled().sendNow(admission, RELAY_WINDOW, at))
                .isEqualTo(new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED));
    }

    @Test
    void sendNowWithEvent_signedAtTheWindowEdge_isANewRevisionDueNow() {
        Instant at = DUE.minusSeconds(3600);
        NostrEvent edge = EventFixture.event().createdAt(at.minus(RELAY_WINDOW).getEpochSecond())
                .content("edge").build();
        Admission admission = MessageFixture.admitted(edge, Timing.IMMEDIATE, at);

        ScheduledMessage now = changed(MessageFixture.scheduled().sendNow(admission, RELAY_WINDOW, at));

        assertThat(now.revision()).isEqualTo(new Revision(2));
        assertThat(now.dueAt()).isEqualTo(at);
        assertThat(now.event()).contains(edge);
        assertThat(now.eventId()).isEqualTo(edge.id());
    }

    @Test
    void cancel_cancelledTwice_answersTheSameMessage() {
        ScheduledMessage cancelled = changed(MessageFixture.scheduled().cancel(NOW));

        OwnerOutcome again = cancelled.cancel(NOW.plusSeconds(5));

        assertThat(again).isEqualTo(new OwnerOutcome.Unchanged(cancelled));
        assertThat(cancelled.updatedAt()).isEqualTo(NOW);
    }
}

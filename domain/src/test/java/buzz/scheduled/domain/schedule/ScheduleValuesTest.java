package buzz.scheduled.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.schedule.ScheduleState.Cancelled;
import buzz.scheduled.domain.schedule.ScheduleState.Claimed;
import buzz.scheduled.domain.schedule.ScheduleState.Failed;
import buzz.scheduled.domain.schedule.ScheduleState.Published;
import buzz.scheduled.domain.schedule.ScheduleState.Scheduled;
import buzz.scheduled.domain.schedule.ScheduleState.Sending;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The value records of the schedule aggregate refuse malformed values with a message naming them. */
class ScheduleValuesTest {

    private static final Instant AT = Instant.ofEpochSecond(1_900_000_000L);
    private static final FencingToken TOKEN = new FencingToken(3);

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void revision_belowOne_namesTheValue(int number) {
        assertThatThrownBy(() -> new Revision(number))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("revision must be 1 or more, got " + number);
    }

    @Test
    void revision_next_isOneMore() {
        assertThat(Revision.FIRST.number()).isEqualTo(1);
        assertThat(Revision.FIRST.next()).isEqualTo(new Revision(2));
        assertThat(new Revision(41).next().toString()).isEqualTo("42");
    }

    @Test
    void revision_nextOfTheLargest_overflowsLoudly() {
        assertThatThrownBy(() -> new Revision(Integer.MAX_VALUE).next()).isInstanceOf(ArithmeticException.class);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void fencingToken_belowOne_namesTheValue(long value) {
        assertThatThrownBy(() -> new FencingToken(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fencing token must be 1 or more, got " + value);
    }

    @Test
    void fencingToken_validValue_printsAsTheNumber() {
        assertThat(new FencingToken(Long.MAX_VALUE).toString()).isEqualTo(String.valueOf(Long.MAX_VALUE));
        assertThat(new FencingToken(1)).isEqualTo(new FencingToken(1)).isNotEqualTo(new FencingToken(2));
    }

    @Test
    void channel_emptyOrMissing_isRejected() {
        assertThatThrownBy(() -> new Channel("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> new Channel(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
    }

    @Test
    void channel_withControlCharacter_isRejected() {
        for (String bad : java.util.List.of("gen\u0000eral", "line\nbreak", "\u007f")) {
            assertThatThrownBy(() -> new Channel(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("control characters");
        }
    }

    @Test
    void channel_longerThanTheLimit_namesTheLimit() {
        assertThatThrownBy(() -> new Channel("c".repeat(Channel.MAX_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 256");
    }

    @Test
    void channel_ofExactlyTheLimit_keepsItsValue() {
        String longest = "c".repeat(Channel.MAX_LENGTH);

        assertThat(new Channel(longest).value()).isEqualTo(longest);
        assertThat(new Channel("general").toString()).isEqualTo("general");
    }

    @Test
    void scheduleId_missing_isRejected() {
        assertThatThrownBy(() -> new ScheduleId(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schedule id");
    }

    @Test
    void scheduleId_parseCanonical_roundTrips() {
        String text = "0190c9a4-5b1e-7cc2-9a3e-2f6d8e1b4c77";

        ScheduleId id = ScheduleId.parse(text);

        assertThat(id.value()).isEqualTo(UUID.fromString(text));
        assertThat(id.toString()).isEqualTo(text);
    }

    @Test
    void scheduleId_parseUppercase_isTheSameId() {
        assertThat(ScheduleId.parse("0190C9A4-5B1E-7CC2-9A3E-2F6D8E1B4C77"))
                .isEqualTo(ScheduleId.parse("0190c9a4-5b1e-7cc2-9a3e-2f6d8e1b4c77"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1-1-1-1-1", "not-a-uuid", "", "0190c9a4-5b1e-7cc2-9a3e-2f6d8e1b4c7",
            "0190c9a45b1e7cc29a3e2f6d8e1b4c77", " 0190c9a4-5b1e-7cc2-9a3e-2f6d8e1b4c77"})
    void scheduleId_parseMalformed_namesTheText(String text) {
        assertThatThrownBy(() -> ScheduleId.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a UUID: " + text);
    }

    @Test
    void scheduleId_parseNull_isIllegalArgument() {
        assertThatThrownBy(() -> ScheduleId.parse(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a UUID: null");
    }

    @ParameterizedTest
    @EnumSource(FailureReason.class)
    void failureReason_wireName_roundTrips(FailureReason reason) {
        assertThat(FailureReason.fromWireName(reason.wireName())).isEqualTo(reason);
    }

    @Test
    void failureReason_wireNames_areTheSpecNames() {
        assertThat(Arrays.stream(FailureReason.values()).map(FailureReason::wireName)).containsExactly(
                "access_denied", "relay_rejected", "expired", "channel_deleted", "member_removed");
    }

    @ParameterizedTest
    @ValueSource(strings = {"timeout", "EXPIRED", "", "expired "})
    void failureReason_unknownWireName_namesIt(String name) {
        assertThatThrownBy(() -> FailureReason.fromWireName(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown failure reason: " + name);
    }

    @Test
    void refusalCode_wireNames_areTheSpecCodes() {
        assertThat(Arrays.stream(RefusalCode.values()).map(RefusalCode::wireName)).containsExactly(
                "invalid_event", "pubkey_mismatch", "kind_not_allowed", "missing_channel", "too_large",
                "protected_event", "expires_before_due", "time_in_past", "time_too_far", "pow_too_low",
                "channel_not_found", "is_archived",
                "not_in_channel", "restricted", "too_many_pending", "restricted_too_many");
    }

    @Test
    void ownerRefusal_wireNames_areTheSpecCodes() {
        assertThat(Arrays.stream(OwnerRefusal.values()).map(OwnerRefusal::wireName))
                .containsExactly("dispatching", "not_pending", "already_sent", "resign_required", "not_failed",
                        "event_purged");
    }

    @Test
    void states_wireNamesAndTerminality_matchTheSpec() {
        assertThat(Scheduled.NOW.wireName()).isEqualTo("scheduled");
        assertThat(Scheduled.NOW.terminal()).isFalse();
        assertThat(Scheduled.NOW.retryAt()).isEmpty();
        assertThat(new Claimed(TOKEN, AT).wireName()).isEqualTo("claimed");
        assertThat(new Claimed(TOKEN, AT).terminal()).isFalse();
        assertThat(new Sending(TOKEN, AT).wireName()).isEqualTo("sending");
        assertThat(new Sending(TOKEN, AT).terminal()).isFalse();
        assertThat(new Published(AT).wireName()).isEqualTo("published");
        assertThat(new Published(AT).terminal()).isTrue();
        assertThat(new Cancelled(AT).wireName()).isEqualTo("cancelled");
        assertThat(new Cancelled(AT).terminal()).isTrue();
        assertThat(new Failed(FailureReason.EXPIRED, AT).wireName()).isEqualTo("failed");
        assertThat(new Failed(FailureReason.EXPIRED, AT).terminal()).isTrue();
    }

    @Test
    void states_withAPartMissing_areRejectedNamingIt() {
        assertThatThrownBy(() -> new Scheduled(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryAt must be present or empty, not null");
        assertThatThrownBy(() -> new Claimed(null, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a claim needs a fencing token");
        assertThatThrownBy(() -> new Claimed(TOKEN, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a claim needs a lease end (leaseUntil)");
        assertThatThrownBy(() -> new Sending(null, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sending needs a fencing token");
        assertThatThrownBy(() -> new Sending(TOKEN, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sending needs a lease end (leaseUntil)");
        assertThatThrownBy(() -> new Published(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("publishedAt is missing");
        assertThatThrownBy(() -> new Cancelled(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cancelledAt is missing");
        assertThatThrownBy(() -> new Failed(null, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a failure needs a reason");
        assertThatThrownBy(() -> new Failed(FailureReason.EXPIRED, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a failure needs a time (failedAt)");
    }

    @Test
    void stateNames_wireNamesAndWhatEachHolds_matchTheSpec() {
        assertThat(StateName.all()).extracting(StateName::wireName)
                .containsExactly("scheduled", "claimed", "sending", "published", "cancelled", "failed");
        assertThat(StateName.where(StateName::terminal))
                .containsExactly(StateName.PUBLISHED, StateName.CANCELLED, StateName.FAILED);
        assertThat(StateName.where(StateName::holdsClaim)).containsExactly(StateName.CLAIMED, StateName.SENDING);
        assertThat(StateName.where(state -> !state.keepsEvent())).containsExactly(StateName.CANCELLED);
        assertThat(StateName.where(StateName::waitsForRetry)).containsExactly(StateName.SCHEDULED);
        assertThat(StateName.where(StateName::hasReason)).containsExactly(StateName.FAILED);
        assertThat(StateName.wireNames(Set.of(StateName.SENDING, StateName.CLAIMED)))
                .containsExactly("claimed", "sending");
    }

    @ParameterizedTest
    @EnumSource(StateName.class)
    void stateName_wireName_roundTrips(StateName state) {
        assertThat(StateName.fromWireName(state.wireName())).isEqualTo(state);
    }

    @Test
    void stateName_unknownWireName_namesIt() {
        assertThatThrownBy(() -> StateName.fromWireName("queued")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown state: queued");
    }

    static Stream<ScheduleState> everyState() {
        return Stream.of(new Scheduled(Optional.of(AT)), Scheduled.NOW, new Claimed(TOKEN, AT), new Sending(TOKEN, AT),
                new Published(AT), new Cancelled(AT), new Failed(FailureReason.MEMBER_REMOVED, AT));
    }

    @ParameterizedTest
    @MethodSource("everyState")
    void state_flattenedAndRebuilt_isTheSameState(ScheduleState state) {
        ScheduleState.Fields fields = state.fields();

        assertThat(ScheduleState.of(fields)).isEqualTo(state);
        assertThat(fields.name()).isEqualTo(state.stateName());
        assertThat(fields.token().isPresent()).isEqualTo(state.stateName().holdsClaim());
        assertThat(fields.finishedAt().isPresent()).isEqualTo(state.terminal());
    }

    @Test
    void stateOf_partTheStateCannotHold_isRejectedNamingIt() {
        assertThatThrownBy(() -> ScheduleState.of(ScheduleState.Fields.of(StateName.PUBLISHED).withFinishedAt(AT)
                .withRetryAt(Optional.of(AT)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("published cannot hold a retry time");
        assertThatThrownBy(() -> ScheduleState.of(ScheduleState.Fields.of(StateName.SCHEDULED).withClaim(TOKEN, AT)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("scheduled cannot hold a claim");
        assertThatThrownBy(() -> ScheduleState.of(ScheduleState.Fields.of(StateName.SENDING).withClaim(TOKEN, AT)
                .withFinishedAt(AT))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sending cannot hold an end time");
        assertThatThrownBy(() -> ScheduleState.of(ScheduleState.Fields.of(StateName.CANCELLED).withFinishedAt(AT)
                .withReason(FailureReason.EXPIRED))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cancelled cannot hold a failure reason");
    }

    @Test
    void stateOf_partTheStateNeedsMissing_isRejectedByItsConstructor() {
        assertThatThrownBy(() -> ScheduleState.of(ScheduleState.Fields.of(StateName.CLAIMED)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a claim needs a fencing token");
        assertThatThrownBy(() -> ScheduleState.of(ScheduleState.Fields.of(StateName.FAILED).withFinishedAt(AT)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a failure needs a reason");
    }

    @Test
    void scheduled_withRetryTime_keepsIt() {
        assertThat(new Scheduled(Optional.of(AT)).retryAt()).contains(AT);
    }

    @Test
    void admission_withAPartMissing_isRejected() {
        var event = EventFixture.event().build();
        var channel = new Channel("general");

        assertThatThrownBy(() -> new Admission(null, channel, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an admission needs an event");
        assertThatThrownBy(() -> new Admission(event, null, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an admission needs a channel");
        assertThatThrownBy(() -> new Admission(event, channel, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an admission needs a due time");
    }

    @Test
    void refusal_withoutCodeOrMessage_isRejected() {
        assertThatThrownBy(() -> new Refusal(null, "why")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a refusal needs a code");
        assertThatThrownBy(() -> new Refusal(RefusalCode.TOO_LARGE, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refusal too_large needs a message");
        assertThatThrownBy(() -> new Refusal(RefusalCode.TOO_LARGE, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refusal too_large needs a message");
        assertThat(new Refusal(RefusalCode.TOO_LARGE, "too big").code()).isEqualTo(RefusalCode.TOO_LARGE);
    }
}

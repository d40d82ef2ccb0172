package buzz.scheduled.domain.schedule;

import static buzz.scheduled.domain.schedule.MessageFixture.DUE;
import static buzz.scheduled.domain.schedule.MessageFixture.LEASE_UNTIL;
import static buzz.scheduled.domain.schedule.MessageFixture.MAX_LATENESS;
import static buzz.scheduled.domain.schedule.MessageFixture.NOW;
import static buzz.scheduled.domain.schedule.MessageFixture.OTHER_TOKEN;
import static buzz.scheduled.domain.schedule.MessageFixture.REVISED;
import static buzz.scheduled.domain.schedule.MessageFixture.TOKEN;
import static buzz.scheduled.domain.schedule.MessageFixture.changed;
import static buzz.scheduled.domain.schedule.MessageFixture.moved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.schedule.ScheduleState.Claimed;
import buzz.scheduled.domain.schedule.ScheduleState.Failed;
import buzz.scheduled.domain.schedule.ScheduleState.Published;
import buzz.scheduled.domain.schedule.ScheduleState.Scheduled;
import buzz.scheduled.domain.schedule.ScheduleState.Sending;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The guarantees of docs/delivery.md at the aggregate: a write on behalf of a claim applies only while that claim
 * (its token) still holds, nothing is claimed early, and a claim goes straight into {@code sending}. The checks
 * after the claim are {@link PreSendCheckTest}'s.
 */
class ScheduledMessageFencingTest {

    /** Every delivery transition that acts on behalf of a claim, with the token it acts for. */
    static Stream<Arguments> tokenTransitions() {
        return Stream.of(
                transition("publish", (m, token) -> m.publish(token, NOW)),
                transition("retryLater", (m, token) -> m.retryLater(token, NOW.plusSeconds(30), MAX_LATENESS, NOW)),
                transition("fail", (m, token) -> m.fail(token, FailureReason.RELAY_REJECTED, NOW)),
                transition("release", (m, token) -> m.release(token, NOW)),
                transition("renewLease", (m, token) -> m.renewLease(token, NOW.plusSeconds(120), NOW)));
    }

    private static Arguments transition(String name, BiFunction<ScheduledMessage, FencingToken, DeliveryOutcome> call) {
        return Arguments.of(name, call);
    }

    static Stream<Arguments> tokenTransitionsInHeldStates() {
        return tokenTransitions().flatMap(t -> Stream.of(
                Arguments.of(t.get()[0], t.get()[1], "claimed"),
                Arguments.of(t.get()[0], t.get()[1], "sending")));
    }

    private static ScheduledMessage held(String state) {
        return state.equals("claimed") ? MessageFixture.claimed() : MessageFixture.sending();
    }

    @ParameterizedTest(name = "{0} in {2}")
    @MethodSource("tokenTransitionsInHeldStates")
    void transition_withAnotherClaimsToken_isFenced(
            String name, BiFunction<ScheduledMessage, FencingToken, DeliveryOutcome> call, String state) {
        DeliveryOutcome outcome = call.apply(held(state), OTHER_TOKEN);

        assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Fenced.class,
                fenced -> assertThat(fenced.why()).contains(OTHER_TOKEN.toString()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tokenTransitions")
    void transition_withTokenOfAClaimRevokedByAnEdit_isFenced(
            String name, BiFunction<ScheduledMessage, FencingToken, DeliveryOutcome> call) {
        // Revision 1 claimed with TOKEN; the owner edits (revoking it); revision 2 is claimed with OTHER_TOKEN.
        ScheduledMessage edited = changed(MessageFixture.claimed().revise(REVISED, Revision.FIRST, NOW));
        Instant revisedDue = REVISED.dueAt();
        ScheduledMessage reclaimed = moved(edited.claim(OTHER_TOKEN, revisedDue.plusSeconds(60), revisedDue));

        for (ScheduledMessage current : new ScheduledMessage[] {edited, reclaimed}) {
            assertThat(call.apply(current, TOKEN)).as("%s with the revoked token in %s", name,
                    current.state().wireName()).isInstanceOf(DeliveryOutcome.Fenced.class);
        }
    }

    @Test
    void revise_inClaimed_revokesTheClaim() {
        ScheduledMessage claimed = MessageFixture.claimed();

        ScheduledMessage edited = changed(claimed.revise(REVISED, Revision.FIRST, NOW));

        assertThat(edited.state()).isEqualTo(Scheduled.NOW);
        assertThat(edited.revision()).isEqualTo(new Revision(2));
        assertThat(edited.token()).isEmpty();
        assertThat(edited.event()).contains(REVISED.event());
        // The dispatcher that claimed revision 1 comes back to record an outcome: 0 rows.
        assertThat(edited.publish(TOKEN, NOW)).isInstanceOf(DeliveryOutcome.Fenced.class);
        assertThat(edited.fail(TOKEN, FailureReason.EXPIRED, NOW)).isInstanceOf(DeliveryOutcome.Fenced.class);
    }

    @Test
    void cancel_inClaimed_fencesTheClaimantsWrites() {
        ScheduledMessage cancelled = changed(MessageFixture.claimed().cancel(NOW));

        assertThat(cancelled.publish(TOKEN, NOW)).isInstanceOf(DeliveryOutcome.Fenced.class);
        assertThat(cancelled.release(TOKEN, NOW)).isInstanceOf(DeliveryOutcome.Fenced.class);
        assertThat(cancelled.event()).isEmpty();
    }

    @Test
    void sendNowStored_inClaimed_fencesTheOldClaimButKeepsTheRevision() {
        ScheduledMessage again = changed(MessageFixture.claimed().sendNow(MessageFixture.RELAY_WINDOW, NOW));

        assertThat(again.revision()).isEqualTo(Revision.FIRST);
        assertThat(again.renewLease(TOKEN, NOW.plusSeconds(60), NOW)).isInstanceOf(DeliveryOutcome.Fenced.class);
    }

    @Test
    void revise_withStaleIfMatch_isRevisionConflictAndKeepsTheClaim() {
        ScheduledMessage claimed = MessageFixture.claimed();

        OwnerOutcome outcome = claimed.revise(REVISED, new Revision(2), NOW);

        assertThat(outcome).isEqualTo(new OwnerOutcome.RevisionConflict(Revision.FIRST));
        assertThat(moved(claimed.renewLease(TOKEN, NOW.plusSeconds(60), NOW)).state())
                .isEqualTo(new Claimed(TOKEN, NOW.plusSeconds(60)));
    }

    @Test
    void revise_inScheduledWithStaleIfMatch_isRevisionConflictNamingTheCurrentRevision() {
        ScheduledMessage revision2 = changed(MessageFixture.scheduled().revise(REVISED, Revision.FIRST, NOW));

        assertThat(revision2.revise(REVISED, Revision.FIRST, NOW))
                .isEqualTo(new OwnerOutcome.RevisionConflict(new Revision(2)));
    }

    @Test
    void revise_withEventOfAnotherAuthor_isRejectedAsBrokenInvariant() {
        Admission strangers = new Admission(EventFixture.event().pubkey(EventFixture.STRANGER)
                .createdAt(DUE.plusSeconds(60).getEpochSecond()).build(), new Channel("general"), DUE.plusSeconds(60));

        assertThatThrownBy(() -> MessageFixture.scheduled().revise(strangers, Revision.FIRST, NOW))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(EventFixture.OWNER.hex());
    }

    @Test
    void claim_beforeDueTime_isFenced() {
        DeliveryOutcome outcome = MessageFixture.scheduled().claim(TOKEN, DUE.plusSeconds(60), DUE.minusNanos(1));

        assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Fenced.class,
                fenced -> assertThat(fenced.why()).contains("not due until " + DUE));
    }

    @Test
    void claim_exactlyAtDueTime_claimsStraightIntoSending() {
        ScheduledMessage claimed = moved(MessageFixture.scheduled().claim(TOKEN, DUE.plusSeconds(60), DUE));

        assertThat(claimed.state()).isEqualTo(new Sending(TOKEN, DUE.plusSeconds(60)));
        assertThat(claimed.attempts()).isEqualTo(1);
    }

    @Test
    void claim_beforeRetryTime_isFenced() {
        Instant retryAt = NOW.plusSeconds(30);
        ScheduledMessage waiting = MessageFixture.in(new Scheduled(Optional.of(retryAt)), 1);

        DeliveryOutcome outcome = waiting.claim(TOKEN, retryAt.plusSeconds(60), retryAt.minusMillis(1));

        assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Fenced.class,
                fenced -> assertThat(fenced.why()).contains("retry not before " + retryAt));
    }

    @Test
    void claim_atRetryTime_claimsAndCountsTheAttempt() {
        Instant retryAt = NOW.plusSeconds(30);
        ScheduledMessage waiting = MessageFixture.in(new Scheduled(Optional.of(retryAt)), 1);

        ScheduledMessage claimed = moved(waiting.claim(TOKEN, retryAt.plusSeconds(60), retryAt));

        assertThat(claimed.state()).isEqualTo(new Sending(TOKEN, retryAt.plusSeconds(60)));
        assertThat(claimed.attempts()).isEqualTo(2);
    }

    @Test
    void claim_withLeaseNotAfterNow_isRejected() {
        assertThatThrownBy(() -> MessageFixture.scheduled().claim(TOKEN, NOW, NOW))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
    }

    @Test
    void retryLater_pastLatenessLimit_failsExpiredAndPurges() {
        Instant beyond = DUE.plus(MAX_LATENESS).plusSeconds(1);

        ScheduledMessage failed = moved(MessageFixture.sending().retryLater(TOKEN, beyond, MAX_LATENESS, NOW));

        assertThat(failed.state()).isEqualTo(new Failed(FailureReason.EXPIRED, NOW));
        assertThat(failed.event()).isEmpty();
    }

    @Test
    void retryLater_atLatenessLimit_reschedules() {
        Instant limit = DUE.plus(MAX_LATENESS);

        ScheduledMessage again = moved(MessageFixture.sending().retryLater(TOKEN, limit, MAX_LATENESS, NOW));

        assertThat(again.state()).isEqualTo(new Scheduled(Optional.of(limit)));
        assertThat(again.token()).isEmpty();
    }

    @Test
    void reap_atTheLeaseEnd_isFenced() {
        assertThat(MessageFixture.claimed().reap(LEASE_UNTIL)).isInstanceOf(DeliveryOutcome.Fenced.class);
        assertThat(MessageFixture.sending().reap(LEASE_UNTIL)).isInstanceOf(DeliveryOutcome.Fenced.class);
    }

    @Test
    void reap_afterTheLeaseEnd_fencesTheFormerHolder() {
        ScheduledMessage reaped = moved(MessageFixture.sending().reap(LEASE_UNTIL.plusNanos(1)));

        assertThat(reaped.state()).isEqualTo(Scheduled.NOW);
        assertThat(reaped.publish(TOKEN, LEASE_UNTIL.plusSeconds(1))).isInstanceOf(DeliveryOutcome.Fenced.class);
    }

    @Test
    void publish_racingTheReaperAtTheLeaseEnd_exactlyOneWins() {
        ScheduledMessage sending = MessageFixture.sending();

        ScheduledMessage published = moved(sending.publish(TOKEN, LEASE_UNTIL));
        assertThat(published.reap(LEASE_UNTIL.plusSeconds(1))).isInstanceOf(DeliveryOutcome.Fenced.class);

        ScheduledMessage reaped = moved(sending.reap(LEASE_UNTIL.plusSeconds(1)));
        assertThat(reaped.publish(TOKEN, LEASE_UNTIL.plusSeconds(1))).isInstanceOf(DeliveryOutcome.Fenced.class);
    }

    @Test
    void publish_fromClaimedWithoutThePreSendStep_isFenced() {
        assertThat(MessageFixture.claimed().publish(TOKEN, NOW)).isInstanceOf(DeliveryOutcome.Fenced.class);
    }

    @Test
    void revoke_inSending_isLeftToTheClaimantsFencedWrite() {
        assertThat(MessageFixture.sending().revoke(FailureReason.CHANNEL_DELETED, NOW))
                .isInstanceOf(DeliveryOutcome.Fenced.class);
    }

    @Test
    void release_inSendingWithItsToken_reschedulesAtOnceKeepingTheAttempt() {
        ScheduledMessage released = moved(MessageFixture.sending().release(TOKEN, NOW));

        assertThat(released.state()).isEqualTo(Scheduled.NOW);
        assertThat(released.attempts()).isEqualTo(MessageFixture.sending().attempts());
        assertThat(released.event()).isEqualTo(MessageFixture.sending().event());
    }

    @Test
    void revoke_inClaimed_fencesTheClaimant() {
        ScheduledMessage revoked = moved(MessageFixture.claimed().revoke(FailureReason.MEMBER_REMOVED, NOW));

        assertThat(revoked.state()).isEqualTo(new Failed(FailureReason.MEMBER_REMOVED, NOW));
        assertThat(revoked.publish(TOKEN, NOW)).isInstanceOf(DeliveryOutcome.Fenced.class);
    }

    @Test
    void deliveryPath_fromAdmissionToPublished_followsTheStates() {
        ScheduledMessage admitted = ScheduledMessage.admit(MessageFixture.ID,
                MessageFixture.admitted(MessageFixture.ORIGINAL, AdmissionRules.Timing.FUTURE, DUE.minusSeconds(60)),
                DUE.minusSeconds(60));
        assertThat(admitted.state()).isEqualTo(Scheduled.NOW);
        assertThat(admitted.dueAt()).isEqualTo(DUE);
        assertThat(admitted.attempts()).isZero();

        ScheduledMessage claimed = moved(admitted.claim(TOKEN, LEASE_UNTIL, NOW));
        ScheduledMessage sending = moved(claimed.renewLease(TOKEN, LEASE_UNTIL.plusSeconds(30), NOW));
        ScheduledMessage published = moved(sending.publish(TOKEN, NOW.plusSeconds(1)));

        assertThat(sending.token()).contains(TOKEN);
        assertThat(sending.state()).isEqualTo(new Sending(TOKEN, LEASE_UNTIL.plusSeconds(30)));
        assertThat(published.state()).isEqualTo(new Published(NOW.plusSeconds(1)));
        assertThat(published.publishedAt()).contains(NOW.plusSeconds(1));
        assertThat(published.token()).isEmpty();
        assertThat(published.attempts()).isEqualTo(1);
        assertThat(published.event()).contains(MessageFixture.ORIGINAL);
    }
}

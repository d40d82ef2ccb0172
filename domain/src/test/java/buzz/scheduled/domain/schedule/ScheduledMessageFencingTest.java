package buzz.scheduled.domain.schedule;

import static buzz.scheduled.domain.schedule.MessageFixture.DUE;
import static buzz.scheduled.domain.schedule.MessageFixture.NOW;
import static buzz.scheduled.domain.schedule.MessageFixture.REVISED;
import static buzz.scheduled.domain.schedule.MessageFixture.changed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.schedule.ScheduleState.Scheduled;
import org.junit.jupiter.api.Test;

/**
 * The owner's side of fencing (docs/delivery.md): an edit, cancel or send-now of a claimed message drops its claim,
 * so the claimant's fenced writes no longer match; a stale {@code If-Match} changes nothing. The store's side, that
 * a write for a claim applies only while its token holds, is {@code DeliveryStoreContract}'s and
 * {@code TransitionContract}'s.
 */
class ScheduledMessageFencingTest {

    @Test
    void revise_inClaimed_revokesTheClaim() {
        ScheduledMessage claimed = MessageFixture.claimed();

        ScheduledMessage edited = changed(claimed.revise(REVISED, Revision.FIRST, NOW));

        assertThat(edited.state()).isEqualTo(Scheduled.NOW);
        assertThat(edited.revision()).isEqualTo(new Revision(2));
        assertThat(edited.token()).isEmpty();
        assertThat(edited.event()).contains(REVISED.event());
    }

    @Test
    void cancel_inClaimed_dropsTheClaimAndThePayload() {
        ScheduledMessage cancelled = changed(MessageFixture.claimed().cancel(NOW));

        assertThat(cancelled.token()).isEmpty();
        assertThat(cancelled.event()).isEmpty();
        assertThat(cancelled.state()).isEqualTo(new ScheduleState.Cancelled(NOW));
    }

    @Test
    void sendNowStored_inClaimed_dropsTheClaimButKeepsTheRevision() {
        ScheduledMessage again = changed(MessageFixture.claimed().sendNow(MessageFixture.RELAY_WINDOW, NOW));

        assertThat(again.revision()).isEqualTo(Revision.FIRST);
        assertThat(again.token()).isEmpty();
        assertThat(again.state()).isEqualTo(Scheduled.NOW);
    }

    @Test
    void revise_withStaleIfMatch_isRevisionConflictAndKeepsTheClaim() {
        ScheduledMessage claimed = MessageFixture.claimed();

        OwnerOutcome outcome = claimed.revise(REVISED, new Revision(2), NOW);

        assertThat(outcome).isEqualTo(new OwnerOutcome.RevisionConflict(Revision.FIRST));
        assertThat(claimed.token()).contains(MessageFixture.TOKEN);
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
}

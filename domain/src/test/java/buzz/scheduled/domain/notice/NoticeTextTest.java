package buzz.scheduled.domain.notice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NoticeTextTest {
    private static final PublicKey OWNER = new PublicKey("a".repeat(64));
    private static final Instant DUE = Instant.parse("2026-03-01T09:00:00Z");

    private static MessageOutcome outcome(PublicKey owner, MessageOutcome.Result result) {
        return new MessageOutcome(owner, new ScheduleId(UUID.fromString("0190c9a4-5b1e-7cc2-9a3e-2f6d8e1b4c77")),
                new Channel("lobby"), new EventId("3f".repeat(32)), DUE, DUE.plusSeconds(2), result);
    }

    @Test
    void of_oneFailure_saysWhichMessageWhenItWasDueAndWhyInWords() {
        String text = NoticeText.of(List.of(outcome(OWNER, new MessageOutcome.Result.Failed(
                FailureReason.ACCESS_DENIED, Optional.of("not a member of group lobby")))));

        assertThat(text).isEqualTo("""
                Your scheduled message could not be sent.

                Message 0190c9a4-5b1e-7cc2-9a3e-2f6d8e1b4c77 in channel lobby (event %s), due 2026-03-01 09:00:00 UTC:
                not sent: when it was due, you were no longer allowed to post in that channel (access_denied, \
                2026-03-01 09:00:02 UTC). Details from the last attempt: "not a member of group lobby".
                """.formatted("3f".repeat(32)));
    }

    @Test
    void of_failureAndPublication_countsBothAndTellsEach() {
        String text = NoticeText.of(List.of(
                outcome(OWNER, new MessageOutcome.Result.Failed(FailureReason.EXPIRED, Optional.empty())),
                outcome(OWNER, new MessageOutcome.Result.Published())));

        assertThat(text).startsWith("1 of your scheduled messages could not be sent and 1 were published.")
                .contains("not sent: it could not be delivered in time", "(expired, ")
                .contains("published at 2026-03-01 09:00:02 UTC.").doesNotContain("Details");
    }

    @Test
    void why_everyReason_isASentenceWithoutTheCode() {
        for (FailureReason reason : FailureReason.values()) {
            assertThat(NoticeText.why(reason)).isNotBlank().doesNotContain(reason.wireName());
        }
    }

    @Test
    void of_anotherOwnersOutcomeOrTooMany_isRefused() {
        MessageOutcome mine = outcome(OWNER, new MessageOutcome.Result.Published());
        MessageOutcome theirs = outcome(new PublicKey("b".repeat(64)), new MessageOutcome.Result.Published());

        assertThatThrownBy(() -> NoticeText.of(List.of(mine, theirs))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one owner");
        assertThatThrownBy(() -> NoticeText.of(Collections.nCopies(NoticeText.MAX_OUTCOMES + 1, mine)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NoticeText.of(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void choice_tells_failuresAlwaysExceptNone_publicationsOnlyForAll() {
        MessageOutcome.Result failed = new MessageOutcome.Result.Failed(FailureReason.EXPIRED, Optional.empty());
        MessageOutcome.Result published = new MessageOutcome.Result.Published();

        assertThat(NoticeChoice.NONE.tells(failed)).isFalse();
        assertThat(NoticeChoice.FAILURES.tells(failed)).isTrue();
        assertThat(NoticeChoice.FAILURES.tells(published)).isFalse();
        assertThat(NoticeChoice.ALL.tells(published)).isTrue();
        assertThat(NoticeChoice.fromWireName("failures")).contains(NoticeChoice.DEFAULT);
        assertThat(NoticeChoice.fromWireName("loud")).isEmpty();
    }
}

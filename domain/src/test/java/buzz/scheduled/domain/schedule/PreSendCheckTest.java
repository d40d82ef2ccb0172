package buzz.scheduled.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PreSendCheckTest {
    private static final Instant DUE = Instant.parse("2026-12-01T12:00:00Z");
    private static final Duration LIMIT = Duration.ofSeconds(900);

    @Test
    void verdict_dueAndInTime_sends() {
        assertThat(PreSendCheck.verdict(DUE, false, LIMIT, DUE)).isEqualTo(new PreSendCheck.Verdict.Send());
        assertThat(PreSendCheck.verdict(DUE, false, LIMIT, DUE.plusSeconds(30)))
                .isEqualTo(new PreSendCheck.Verdict.Send());
    }

    @Test
    void verdict_exactlyAtTheLatenessLimit_sends() {
        assertThat(PreSendCheck.verdict(DUE, false, LIMIT, DUE.plus(LIMIT))).isEqualTo(new PreSendCheck.Verdict.Send());
    }

    @Test
    void verdict_pastTheLatenessLimit_failsExpired() {
        assertThat(PreSendCheck.verdict(DUE, false, LIMIT, DUE.plus(LIMIT).plusNanos(1000)))
                .isEqualTo(new PreSendCheck.Verdict.Fail(FailureReason.EXPIRED));
    }

    @Test
    void verdict_deletedChannel_failsChannelDeletedEvenWhenAlsoLate() {
        assertThat(PreSendCheck.verdict(DUE, true, LIMIT, DUE))
                .isEqualTo(new PreSendCheck.Verdict.Fail(FailureReason.CHANNEL_DELETED));
        assertThat(PreSendCheck.verdict(DUE, true, LIMIT, DUE.plus(LIMIT).plusSeconds(1)))
                .isEqualTo(new PreSendCheck.Verdict.Fail(FailureReason.CHANNEL_DELETED));
    }

    @Test
    void verdict_beforeTheDueTime_isABrokenInvariantNamingBothTimes() {
        assertThatThrownBy(() -> PreSendCheck.verdict(DUE, false, LIMIT, DUE.minusMillis(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(DUE.toString())
                .hasMessageContaining(DUE.minusMillis(1).toString());
    }

    @Test
    void fail_withoutAReason_isRefused() {
        assertThatThrownBy(() -> new PreSendCheck.Verdict.Fail(null)).isInstanceOf(IllegalArgumentException.class);
    }
}

package buzz.scheduled.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.http.ConnectionWatch.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The decisions of {@link ConnectionWatch}, stepped by hand: Jetty's counts of request heads and answers begun, the
 * answers written whole, and the sweep's clock.
 */
class ConnectionWatchTest {
    private static final long HEADER = Duration.ofSeconds(10).toNanos();
    private static final long BODY = Duration.ofSeconds(30).toNanos();
    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    private final ConnectionWatch watch = new ConnectionWatch(null, 0, HEADER, BODY);

    @Test
    void observe_noRequestHeadWithinTheHeaderTimeoutOfOpening_closesForTheHeader() {
        assertThat(watch.observe(0, 0, 9 * SECOND)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(0, 0, 10 * SECOND)).isEqualTo(Verdict.CLOSE_HEADER);
    }

    @Test
    void observe_aRequestBeingHandledForLong_isNeverClosed() {
        assertThat(watch.observe(1, 0, SECOND)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(1, 0, 600 * SECOND)).isEqualTo(Verdict.KEEP);
    }

    @Test
    void observe_anAnswerBegunButNotWrittenWhole_isNotTakenForAnIdleConnection_untilTheBodyTimeout() {
        watch.observe(1, 0, SECOND);
        // Jetty counts the answer as it begins; the client reads it slowly.
        assertThat(watch.observe(1, 1, 2 * SECOND)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(1, 1, 2 * SECOND + HEADER)).as("past the header timeout").isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(1, 1, 2 * SECOND + BODY - 1)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(1, 1, 2 * SECOND + BODY)).isEqualTo(Verdict.CLOSE_RESPONSE);
    }

    @Test
    void observe_afterAnAnswerWrittenWhole_theHeaderTimeoutStartsAgainFromWhenItIsSeen() {
        watch.observe(1, 0, SECOND);
        watch.observe(1, 1, 2 * SECOND);
        watch.answerWritten();

        assertThat(watch.observe(1, 1, 5 * SECOND)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(1, 1, 5 * SECOND + HEADER - 1)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(1, 1, 5 * SECOND + HEADER)).isEqualTo(Verdict.CLOSE_HEADER);
    }

    @Test
    void observe_aWholeExchangeBetweenTwoLooks_startsTheHeaderTimeoutAgain() {
        watch.answerWritten();

        assertThat(watch.observe(1, 1, 9 * SECOND)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(1, 1, 18 * SECOND)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(1, 1, 19 * SECOND)).isEqualTo(Verdict.CLOSE_HEADER);
    }

    @Test
    void observe_aSecondRequestOnAKeptAliveConnection_isHandledThenWaitsAgain() {
        watch.observe(1, 0, SECOND);
        watch.answerWritten();
        watch.observe(1, 1, 2 * SECOND);

        assertThat(watch.observe(2, 1, 11 * SECOND)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(2, 2, 12 * SECOND)).as("answer begun, not written").isEqualTo(Verdict.KEEP);
        watch.answerWritten();
        assertThat(watch.observe(2, 2, 13 * SECOND)).isEqualTo(Verdict.KEEP);
        assertThat(watch.observe(2, 2, 13 * SECOND + HEADER)).isEqualTo(Verdict.CLOSE_HEADER);
    }
}

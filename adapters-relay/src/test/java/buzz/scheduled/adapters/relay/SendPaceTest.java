package buzz.scheduled.adapters.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The pace against simulated rate limiters on a simulated clock (docs/failure-scenarios.md F39): khatru's
 * EventIPRateLimiter (N at once, N more every interval) at every phase of its interval, and a token bucket. A backlog
 * of 100 frames due at once goes out in about the time the limiter allows, at well under 1.5 frames per frame.
 */
class SendPaceTest {
    private static final long RTT = TimeUnit.MILLISECONDS.toNanos(3);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    /** The simulated clock starts far from zero, as System.nanoTime() may. */
    private static final long START = 1L << 40;

    /** Decides each frame the relay reads at {@code at}. */
    interface Limiter {
        boolean accepts(long at);
    }

    /** khatru: a count that N accepted frames may raise while it is below N, lowered by N every interval. */
    static Limiter khatru(int events, long intervalNanos, long phaseNanos) {
        return new Limiter() {
            long nextTick = START + phaseNanos;
            int count;

            @Override
            public boolean accepts(long at) {
                while (at - nextTick >= 0) {
                    count = Math.max(0, count - events);
                    nextTick += intervalNanos;
                }
                if (count >= events) {
                    return false;
                }
                count++;
                return true;
            }
        };
    }

    /** A token bucket of {@code capacity} refilled at {@code perSecond}. */
    static Limiter bucket(int capacity, double perSecond) {
        return new Limiter() {
            double tokens = capacity;
            long last = START;

            @Override
            public boolean accepts(long at) {
                tokens = Math.min(capacity, tokens + (at - last) * perSecond / SECOND);
                last = at;
                if (tokens >= 1) {
                    tokens--;
                    return true;
                }
                return false;
            }
        };
    }

    /** What sending {@code frames} frames through the pace to {@code relay} took. */
    record Run(int written, long lastAcceptedNanos) {
        double framesPerMessage(int messages) {
            return written / (double) messages;
        }

        double seconds() {
            return (lastAcceptedNanos - START) / (double) SECOND;
        }
    }

    private record Answer(long at, long writtenAt, int frame, boolean accepted) {
    }

    /** Writes whenever the pace allows (checked every 50 ms, as the client's timer does, and on every answer). */
    static Run run(Limiter relay, int frames) {
        SendPace pace = new SendPace(START);
        ArrayDeque<Integer> waiting = new ArrayDeque<>();
        for (int i = 0; i < frames; i++) {
            waiting.add(i);
        }
        PriorityQueue<Answer> answers = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
        long now = START;
        long nextTick = START;
        int unanswered = 0;
        int written = 0;
        int accepted = 0;
        long last = START;
        while (accepted < frames) {
            while (!waiting.isEmpty() && pace.mayWrite(now, unanswered)) {
                int frame = waiting.poll();
                pace.written(now);
                written++;
                unanswered++;
                answers.add(new Answer(now + RTT, now, frame, relay.accepts(now + RTT / 2)));
            }
            Answer next = answers.peek();
            if (next != null && next.at() - nextTick <= 0) {
                now = next.at();
                answers.poll();
                unanswered--;
                if (next.accepted()) {
                    pace.accepted(next.writtenAt(), now);
                    accepted++;
                    last = now;
                } else {
                    pace.rateLimited(next.writtenAt(), now);
                    waiting.addFirst(next.frame());
                }
            } else {
                now = nextTick;
                nextTick += TimeUnit.MILLISECONDS.toNanos(50);
            }
        }
        return new Run(written, last);
    }

    @ParameterizedTest
    @CsvSource({"0", "500", "1000", "2500", "4000", "4900"})
    void hundredDueAtOnce_atKhatrusTenPerFiveSeconds_atMostOneAndAHalfFramesEach_within20PercentOfItsLimit(
            long phaseMillis) {
        Run run = run(khatru(10, 5 * SECOND, TimeUnit.MILLISECONDS.toNanos(phaseMillis)), 100);
        System.out.printf("F39 simulated, khatru 10 per 5 s, phase %d ms: %.2f frames per message, last accepted after"
                + " %.1f s%n", phaseMillis, run.framesPerMessage(100), run.seconds());

        // The limiter lets 10 in at once and the 100th in at its ninth interval boundary: the phase plus 40 s (a
        // boundary at 0 itself lowers nothing, then 45 s).
        double limit = phaseMillis == 0 ? 45 : 40 + phaseMillis / 1000.0;
        assertThat(run.framesPerMessage(100)).isLessThanOrEqualTo(1.5);
        assertThat(run.seconds()).isLessThanOrEqualTo(1.2 * limit);
    }

    @Test
    void hundredDueAtOnce_atATokenBucketOfTenAtTwoPerSecond_atMostOneAndAHalfFramesEach_withinItsLimit() {
        Run run = run(bucket(10, 2.0), 100);
        System.out.printf("F39 simulated, token bucket of 10 at 2/s: %.2f frames per message, last accepted after"
                + " %.1f s%n", run.framesPerMessage(100), run.seconds());

        assertThat(run.framesPerMessage(100)).isLessThanOrEqualTo(1.5);
        assertThat(run.seconds()).as("10 at once, 90 more at 2/s: 45 s").isLessThanOrEqualTo(1.2 * 45);
    }

    @Test
    void noLimit_theWindowDoublesPerRoundTrip_soABacklogIsNotHeldBack() {
        Run run = run(at -> true, 10_000);

        assertThat(run.written()).isEqualTo(10_000);
        assertThat(run.seconds()).as("9 round trips of 3 ms reach a window of 8 000").isLessThan(0.1);
    }

    @Test
    void firstRefusal_probesOneFrameAfter100Ms_thenWaitsGrowingByHalf() {
        SendPace pace = new SendPace(START);
        pace.written(START);

        pace.rateLimited(START, START + RTT);

        assertThat(pace.state()).isEqualTo(new SendPace.Probing(TimeUnit.MILLISECONDS.toNanos(100),
                START + RTT + TimeUnit.MILLISECONDS.toNanos(100)));
        assertThat(pace.mayWrite(START + RTT + TimeUnit.MILLISECONDS.toNanos(99), 0)).isFalse();
        assertThat(pace.mayWrite(START + RTT + TimeUnit.MILLISECONDS.toNanos(100), 1)).as("one at a time").isFalse();
        assertThat(pace.mayWrite(START + RTT + TimeUnit.MILLISECONDS.toNanos(100), 0)).isTrue();
        pace.written(START + SECOND);
        pace.rateLimited(START + SECOND, START + SECOND + RTT);
        assertThat(pace.state()).isEqualTo(new SendPace.Probing(TimeUnit.MILLISECONDS.toNanos(150),
                START + SECOND + RTT + TimeUnit.MILLISECONDS.toNanos(150)));
    }

    @Test
    void refusalsOfFramesWrittenBeforeThePaceChanged_doNotMoveItAgain() {
        SendPace pace = new SendPace(START);
        for (int i = 0; i < 16; i++) {
            pace.written(START);
        }

        pace.rateLimited(START, START + RTT);
        SendPace.State afterFirst = pace.state();
        pace.rateLimited(START, START + RTT + 1);

        assertThat(pace.state()).isEqualTo(afterFirst);
    }

    @Test
    void idleAMinuteWithoutRefusal_startsOverUnlimited() {
        SendPace pace = new SendPace(START);
        pace.written(START);
        pace.rateLimited(START, START + RTT);

        boolean may = pace.mayWrite(START + 61 * SECOND, 0);

        assertThat(may).isTrue();
        assertThat(pace.state()).isEqualTo(new SendPace.Unlimited(SendPace.INITIAL_WINDOW));
    }
}

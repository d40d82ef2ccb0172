package buzz.scheduled.adapters.relay;

import java.util.concurrent.TimeUnit;

/**
 * How fast event frames may go to the relay, learnt from its {@code rate-limited:} answers (NIP-01), so that a relay
 * that limits how many events it takes (khatru's limiter lets N events in at once and N more every interval; others
 * use token buckets) gets about what it accepts instead of every frame again and again (docs/failure-scenarios.md
 * F39). Every refused frame costs a frame on the wire, and every second spent below the relay's rate costs lateness;
 * the pace keeps both small:
 * <ul>
 *   <li>{@link Unlimited}: no limit seen. At most a window of unanswered frames, which starts at
 *       {@value #INITIAL_WINDOW} and grows by one per accepted frame (it doubles every round trip, as TCP's slow
 *       start does), so a relay that limits is not sent a whole backlog before its first refusal comes back.</li>
 *   <li>{@link Probing}: refused. One frame at a time, after a wait that grows by half from {@code 100 ms} up to
 *       {@code 5 s} per refusal, until one is accepted: the relay's allowance is back. (Growing by half rather than
 *       doubling overshoots the moment the allowance comes back by a third at most.)</li>
 *   <li>{@link Bursting}: one frame at a time, each as soon as the one before is accepted, until a refusal: what the
 *       relay takes at once.</li>
 *   <li>{@link Paced}: frames at a steady rate, which grows by {@code 5 %} per accepted frame (to find more room)
 *       and is set on each refusal to what the relay accepted since it first refused, per second (over at least a
 *       second).</li>
 * </ul>
 * Only answers to frames written after the pace last changed move it: the answers to a burst written before a
 * refusal are old news. After {@value #IDLE_SECONDS} s with no refusal and nothing written, the pace starts over
 * {@link Unlimited}.
 *
 * <p>Not thread-safe: the relay client holds its lock around every call. Times are {@link System#nanoTime()}.
 */
final class SendPace {
    /** Unanswered frames allowed before any answer has come back. */
    static final int INITIAL_WINDOW = 16;
    private static final long FIRST_PROBE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long LONGEST_PROBE_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long SHORTEST_MEASURE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final double GROWTH = 1.05;
    static final int IDLE_SECONDS = 60;

    /** Where the pace stands. */
    sealed interface State permits Unlimited, Probing, Bursting, Paced {
    }

    /** No refusal seen: at most {@code window} frames unanswered. */
    record Unlimited(long window) implements State {
    }

    /** Refused: the next frame alone, not before {@code nextAt}; {@code waitNanos} grows by half on each refusal. */
    record Probing(long waitNanos, long nextAt) implements State {
    }

    /** Accepted again: one frame at a time, each after the one before was accepted. */
    record Bursting() implements State {
    }

    /** A steady {@code perSecond}, the next frame not before {@code nextAt}. */
    record Paced(double perSecond, long nextAt) implements State {
    }

    private State state = new Unlimited(INITIAL_WINDOW);
    /** When the pace last changed: answers to frames written before it do not move it. */
    private long changedAt;
    /** Whether the relay refused in this episode; when it first did, and the frames written since that it took. */
    private boolean refused;
    private long refusedSince;
    private long acceptedSinceRefused;
    private long lastRefusedAt;
    private long lastWrittenAt;
    private boolean written;

    /** A pace that knows no limit yet, made at {@code now}. */
    SendPace(long now) {
        this.changedAt = now;
        this.lastRefusedAt = now;
        this.lastWrittenAt = now;
    }

    State state() {
        return state;
    }

    /** Whether an event frame may be written at {@code now}, with {@code unanswered} written frames waiting. */
    boolean mayWrite(long now, int unanswered) {
        if (!(state instanceof Unlimited) && written && idle(now)) {
            refused = false;
            change(new Unlimited(INITIAL_WINDOW), now);
        }
        return switch (state) {
            case Unlimited unlimited -> unanswered < unlimited.window();
            case Probing probing -> unanswered == 0 && now - probing.nextAt() >= 0;
            case Bursting bursting -> unanswered == 0;
            case Paced paced -> now - paced.nextAt() >= 0;
        };
    }

    /** An event frame was handed to the socket at {@code now}. */
    void written(long now) {
        written = true;
        lastWrittenAt = now;
        if (state instanceof Paced paced) {
            long gap = (long) (TimeUnit.SECONDS.toNanos(1) / paced.perSecond());
            // A pace that fell behind (no frame waiting, a slow tick) catches up by one gap at most.
            long next = Math.max(paced.nextAt() + gap, now);
            state = new Paced(paced.perSecond(), next);
        }
    }

    /** The relay accepted a frame written at {@code writtenAt} (anything but {@code rate-limited:}). */
    void accepted(long writtenAt, long now) {
        if (refused && writtenAt - refusedSince >= 0) {
            acceptedSinceRefused++;
        }
        if (writtenAt - changedAt < 0) {
            return;
        }
        switch (state) {
            case Unlimited unlimited -> state = new Unlimited(unlimited.window() + 1);
            case Probing probing -> change(new Bursting(), now);
            case Bursting bursting -> {
                // the next frame may go at once
            }
            case Paced paced -> state = new Paced(paced.perSecond() * GROWTH, paced.nextAt());
        }
    }

    /** The relay answered a frame written at {@code writtenAt} with {@code rate-limited:}. */
    void rateLimited(long writtenAt, long now) {
        lastRefusedAt = now;
        if (writtenAt - changedAt < 0) {
            return;
        }
        switch (state) {
            case Unlimited unlimited -> {
                refused = true;
                refusedSince = now;
                acceptedSinceRefused = 0;
                change(new Probing(FIRST_PROBE_NANOS, now + FIRST_PROBE_NANOS), now);
            }
            case Probing probing -> {
                long wait = Math.min(LONGEST_PROBE_NANOS, probing.waitNanos() * 3 / 2);
                change(new Probing(wait, now + wait), now);
            }
            case Bursting bursting -> change(pacedAtMeasuredRate(now), now);
            case Paced paced -> change(pacedAtMeasuredRate(now), now);
        }
    }

    /** Frames per second the relay accepted since it first refused (over at least a second); at least one a minute. */
    private Paced pacedAtMeasuredRate(long now) {
        long elapsed = Math.max(SHORTEST_MEASURE_NANOS, now - refusedSince);
        double perSecond = Math.max(1.0 / IDLE_SECONDS,
                acceptedSinceRefused * (double) TimeUnit.SECONDS.toNanos(1) / elapsed);
        return new Paced(perSecond, now + (long) (TimeUnit.SECONDS.toNanos(1) / perSecond));
    }

    private void change(State next, long now) {
        state = next;
        changedAt = now;
    }

    private boolean idle(long now) {
        long limit = TimeUnit.SECONDS.toNanos(IDLE_SECONDS);
        return now - lastWrittenAt > limit && now - lastRefusedAt > limit;
    }
}

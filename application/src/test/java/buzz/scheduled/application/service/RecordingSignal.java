package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.support.InProcessDueWorkSignal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** An {@link InProcessDueWorkSignal} that records how long the dispatcher asked to sleep and whether it sleeps. */
final class RecordingSignal implements DueWorkSignal {
    private final InProcessDueWorkSignal inner = new InProcessDueWorkSignal();
    private final List<Duration> waits = new CopyOnWriteArrayList<>();
    private final AtomicInteger waiting = new AtomicInteger();

    private final AtomicInteger failures = new AtomicInteger();
    private volatile boolean listening = true;
    /** Set by {@link #timeMoved()}: the next wake-up without a time is reported as a timed-out wait. */
    private final AtomicBoolean timeMoved = new AtomicBoolean();

    /** What {@link #listening()} answers from now on (false: a LISTEN connection that is down). */
    void listening(boolean hears) {
        listening = hears;
    }

    @Override
    public boolean listening() {
        return listening;
    }

    /** The next {@code n} waits throw (a broken listener). */
    void failNextWaits(int n) {
        failures.set(n);
    }

    @Override
    public Wake awaitWork(Duration max) {
        if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IllegalStateException("listener broken (test)");
        }
        waits.add(max);
        waiting.incrementAndGet();
        try {
            Wake wake = inner.awaitWork(max);
            if (wake instanceof Wake.Notified notified && notified.nearest().isEmpty() && timeMoved.getAndSet(false)) {
                return new Wake.TimedOut();
            }
            return wake;
        } finally {
            waiting.decrementAndGet();
        }
    }

    /**
     * Ends the current (or next) wait as if it had timed out, so a dispatcher whose monotonic clock a test stepped
     * reads it again: past its wake-up time it goes on, before it it sleeps the rest. Call it with no notification
     * pending (one arriving together with it is taken for the time-out).
     */
    void timeMoved() {
        timeMoved.set(true);
        inner.wakeUp();
    }

    /** What a NOTIFY would deliver. */
    void notifyDue(Optional<Instant> at) {
        inner.notifyDue(at);
    }

    @Override
    public void wakeUp() {
        inner.wakeUp();
    }

    @Override
    public void close() {
        inner.close();
    }

    /** Every wait asked for, in order. */
    List<Duration> waits() {
        return List.copyOf(waits);
    }

    /** Whether someone is waiting now. */
    boolean sleeping() {
        return waiting.get() > 0;
    }
}

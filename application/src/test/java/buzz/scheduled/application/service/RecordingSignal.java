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
    /** Set by {@link #timeMoved()}: a wake-up without a time and without a notification is a timed-out wait. */
    private final AtomicBoolean timeMoved = new AtomicBoolean();
    /**
     * Set by {@link #notifyDue} and {@link #wakeUp()}: the inner signal merges wake-ups, so a notification that arrives
     * together with a {@link #timeMoved()} must still be reported as one.
     */
    private final AtomicBoolean notified = new AtomicBoolean();

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
            if (wake instanceof Wake.Notified woken) {
                boolean byNotification = notified.getAndSet(false);
                boolean byTimeMoved = timeMoved.getAndSet(false);
                if (woken.nearest().isEmpty() && byTimeMoved && !byNotification) {
                    return new Wake.TimedOut();
                }
            }
            return wake;
        } finally {
            waiting.decrementAndGet();
        }
    }

    /**
     * Ends the current (or next) wait as if it had timed out, so a dispatcher whose monotonic clock a test stepped
     * reads it again: past its wake-up time it goes on, before it it sleeps the rest. A notification that the waiter
     * takes in the same wake-up (the inner signal merges them) wins: the wait ends as notified.
     */
    void timeMoved() {
        timeMoved.set(true);
        inner.wakeUp();
    }

    /** What a NOTIFY would deliver. */
    void notifyDue(Optional<Instant> at) {
        notified.set(true);
        inner.notifyDue(at);
    }

    @Override
    public void wakeUp() {
        notified.set(true);
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

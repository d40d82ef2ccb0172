package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.support.InProcessDueWorkSignal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** An {@link InProcessDueWorkSignal} that records how long the dispatcher asked to sleep and whether it sleeps. */
final class RecordingSignal implements DueWorkSignal {
    private final InProcessDueWorkSignal inner = new InProcessDueWorkSignal();
    private final List<Duration> waits = new CopyOnWriteArrayList<>();
    private final AtomicInteger waiting = new AtomicInteger();

    private final AtomicInteger failures = new AtomicInteger();
    private volatile boolean listening = true;

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
            return inner.awaitWork(max);
        } finally {
            waiting.decrementAndGet();
        }
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

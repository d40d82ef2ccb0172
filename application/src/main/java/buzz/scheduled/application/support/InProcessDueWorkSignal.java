package buzz.scheduled.application.support;

import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.DueWorkSignal;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link DueWorkSignal} fed from inside the process: whoever learns of nearer work calls {@link #notifyDue}.
 * Used directly where the store cannot notify (the in-memory store), and by signal adapters as the hand-off
 * between their listener thread and the waiting dispatcher. It is an implementation, not a port, and adapters use it,
 * so it lives in {@code support} rather than among the ports or the services (adapters never depend on a service). Notifications are sticky until consumed. As a
 * {@link DueWorkNotice} it takes the owner side's own changes; it never misses anything, so it is always
 * {@linkplain #listening() listening}.
 */
public final class InProcessDueWorkSignal implements DueWorkSignal, DueWorkNotice {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private boolean pending;
    private boolean nearestUnknown;
    private Instant nearest;
    private boolean closed;

    /**
     * Records that work may be due at {@code at} (store clock), or at an unknown time when empty, and wakes a
     * waiter. Ignored after {@link #close()}.
     */
    public void notifyDue(Optional<Instant> at) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            record(at);
        } finally {
            lock.unlock();
        }
    }

    /** Same as {@code notifyDue(Optional.of(dueAt))}. */
    @Override
    public void dueAt(Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("a due time is needed");
        }
        notifyDue(Optional.of(dueAt));
    }

    @Override
    public void wakeUp() {
        lock.lock();
        try {
            record(Optional.empty());
        } finally {
            lock.unlock();
        }
    }

    private void record(Optional<Instant> at) {
        pending = true;
        if (at.isEmpty()) {
            nearestUnknown = true;
        } else if (nearest == null || at.get().isBefore(nearest)) {
            nearest = at.get();
        }
        arrived.signalAll();
    }

    @Override
    public Wake awaitWork(Duration max) {
        long nanos = saturatedNanos(max);
        lock.lock();
        try {
            while (!pending && nanos > 0) {
                try {
                    nanos = arrived.awaitNanos(nanos);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (!pending) {
                return new Wake.TimedOut();
            }
            Optional<Instant> named = nearestUnknown ? Optional.empty() : Optional.ofNullable(nearest);
            pending = false;
            nearestUnknown = false;
            nearest = null;
            return new Wake.Notified(named);
        } finally {
            lock.unlock();
        }
    }

    /** Whether a thread is waiting in {@link #awaitWork} now (for tests and diagnostics). */
    public boolean hasWaiters() {
        lock.lock();
        try {
            return lock.hasWaiters(arrived);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
    }

    private static long saturatedNanos(Duration duration) {
        if (duration == null) {
            throw new IllegalArgumentException("wait duration is missing");
        }
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return duration.isNegative() ? 0 : Long.MAX_VALUE;
        }
    }
}

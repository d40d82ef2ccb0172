package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.DeliveryStore.Claim;
import buzz.scheduled.application.support.MonotonicClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The claims a dispatcher holds, bounded by a count (the window of frames in flight) and by their bytes. The claim
 * loop waits here for room; the finisher frees room as outcomes are recorded.
 */
final class DeliveryWindow {
    private final int size;
    private final int claimWhenFree;
    private final long maxBytes;
    private final MonotonicClock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    // guarded by lock
    private final Map<Claim, InFlight> held = new HashMap<>();
    private long bytes;
    /** Frames and their bytes since the start, for the average size a claim is sized by. */
    private long seenFrames;
    private long seenBytes;

    DeliveryWindow(int size, int claimWhenFree, long maxBytes) {
        this(size, claimWhenFree, maxBytes, MonotonicClock.SYSTEM);
    }

    /** A window whose {@link #awaitEmpty} deadlines are readings of {@code clock}. */
    DeliveryWindow(int size, int claimWhenFree, long maxBytes, MonotonicClock clock) {
        this.size = size;
        this.claimWhenFree = claimWhenFree;
        this.maxBytes = maxBytes;
        this.clock = clock;
    }

    void add(InFlight item) {
        lock.lock();
        try {
            if (held.putIfAbsent(item.message.claim(), item) == null) {
                bytes += item.bytes;
                seenFrames++;
                seenBytes += item.bytes;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Frees the item's place; true when it was held. */
    boolean remove(InFlight item) {
        lock.lock();
        try {
            if (!held.remove(item.message.claim(), item)) {
                return false;
            }
            bytes -= item.bytes;
            // Only wake the waiters when what they wait for holds: a claim loop woken on every outcome would
            // cost a context switch per message just to go back to sleep.
            if (held.isEmpty() || hasRoom()) {
                changed.signalAll();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until at least half the window is free (or all of it is, for a window of one) and the bytes in flight
     * are under the cap, or until {@code stop} says so.
     *
     * @return the free places (0 when stopping or interrupted)
     */
    int awaitRoom(BooleanSupplier stop) {
        lock.lock();
        try {
            while (!stop.getAsBoolean() && !hasRoom()) {
                changed.await();
            }
            return stop.getAsBoolean() ? 0 : size - held.size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a claim may be made: at least {@code claimWhenFree} places free and the bytes under the cap. */
    private boolean hasRoom() {
        return size - held.size() >= claimWhenFree && bytes < maxBytes;
    }

    /**
     * How many of {@code places} free places a claim may take so that the bytes in flight stay under the cap, judging
     * the frames still to come by the average size of those seen so far; one, before any frame was seen.
     */
    int fitting(int places) {
        lock.lock();
        try {
            if (seenFrames == 0) {
                return Math.min(places, 1);
            }
            long average = Math.max(1, seenBytes / seenFrames);
            long byBytes = Math.max(1, (maxBytes - bytes) / average);
            return (int) Math.min(places, byBytes);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until nothing is held or the deadline (a reading of this window's clock, read again whenever the wait is
     * woken, see {@link #wake()}) passed; true when empty.
     */
    boolean awaitEmpty(long deadline) {
        lock.lock();
        try {
            long left = deadline - clock.nanoTime();
            while (!held.isEmpty() && left > 0) {
                changed.awaitNanos(left);
                left = deadline - clock.nanoTime();
            }
            return held.isEmpty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return held.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiter so it re-checks its stop condition. */
    void wake() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    List<InFlight> snapshot() {
        lock.lock();
        try {
            return new ArrayList<>(held.values());
        } finally {
            lock.unlock();
        }
    }

    int count() {
        lock.lock();
        try {
            return held.size();
        } finally {
            lock.unlock();
        }
    }
}

package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.ReplayStore;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.Signature;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A {@link ReplayStore} in this process's memory, bounded: for tests and for a single node that may forget on a
 * restart. Production uses the shared store in PostgreSQL (docs/security-model.md). Entries are forgotten once
 * their {@code keepUntil} has passed; when more than {@code capacity} live ones are held, the ones that would expire
 * soonest are forgotten early (a flood cannot exhaust memory, at the price of a weaker guard for those entries
 * during the flood). Thread-safe.
 */
public final class InProcessReplayStore implements ReplayStore {
    private final int capacity;
    private final WallClock clock;
    private final Map<Signature, Instant> keptUntil = new HashMap<>();
    private final PriorityQueue<Map.Entry<Signature, Instant>> byExpiry =
            new PriorityQueue<>(Map.Entry.comparingByValue(Comparator.naturalOrder()));

    /**
     * @param capacity most signatures remembered at once, at least 1
     * @param clock    the time used to forget expired entries
     */
    public InProcessReplayStore(int capacity, WallClock clock) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        if (clock == null) {
            throw new IllegalArgumentException("clock is required");
        }
        this.capacity = capacity;
        this.clock = clock;
    }

    @Override
    public synchronized boolean firstUse(Signature signature, Instant keepUntil) {
        Instant now = clock.now();
        forgetExpired(now);
        Instant kept = keptUntil.get(signature);
        if (kept != null && kept.isAfter(now)) {
            return false;
        }
        while (keptUntil.size() >= capacity) {
            Map.Entry<Signature, Instant> soonest = byExpiry.poll();
            if (soonest == null) {
                break;
            }
            keptUntil.remove(soonest.getKey(), soonest.getValue());
        }
        keptUntil.put(signature, keepUntil);
        byExpiry.add(Map.entry(signature, keepUntil));
        return true;
    }

    /** Number of signatures currently remembered. */
    synchronized int size() {
        return keptUntil.size();
    }

    private void forgetExpired(Instant now) {
        while (!byExpiry.isEmpty() && !byExpiry.peek().getValue().isAfter(now)) {
            Map.Entry<Signature, Instant> expired = byExpiry.poll();
            keptUntil.remove(expired.getKey(), expired.getValue());
        }
    }
}

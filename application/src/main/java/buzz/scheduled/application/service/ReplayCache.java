package buzz.scheduled.application.service;

import buzz.scheduled.domain.nostr.EventId;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers authentication event ids for a fixed time so each is accepted once (NIP-98 replay guard), in memory
 * and bounded. Ids are kept for {@code retention} after first use; when more than {@code capacity} distinct ids
 * arrive within that time the oldest are forgotten early (a flood cannot exhaust memory, at the price of a
 * weaker guard for the oldest entries during the flood). Thread-safe.
 */
final class ReplayCache {
    private final Duration retention;
    private final int capacity;
    private final LinkedHashMap<EventId, Instant> expiries = new LinkedHashMap<>();

    ReplayCache(Duration retention, int capacity) {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("retention must be positive, got " + retention);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.retention = retention;
        this.capacity = capacity;
    }

    /** Records {@code id} at {@code now}; true when it was not seen within the retention, false for a replay. */
    synchronized boolean firstUse(EventId id, Instant now) {
        forgetExpired(now);
        Instant expiry = expiries.get(id);
        if (expiry != null && expiry.isAfter(now)) {
            return false;
        }
        expiries.remove(id);
        if (expiries.size() >= capacity) {
            Iterator<EventId> eldest = expiries.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
        expiries.put(id, now.plus(retention));
        return true;
    }

    /** Number of ids currently remembered. */
    synchronized int size() {
        return expiries.size();
    }

    private void forgetExpired(Instant now) {
        Iterator<Map.Entry<EventId, Instant>> entries = expiries.entrySet().iterator();
        while (entries.hasNext()) {
            // Insertion order is expiry order as long as the clock does not jump back; a backwards jump only
            // delays forgetting, it never forgets an id early.
            if (entries.next().getValue().isAfter(now)) {
                return;
            }
            entries.remove();
        }
    }
}

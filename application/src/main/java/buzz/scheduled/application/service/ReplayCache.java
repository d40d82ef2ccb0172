package buzz.scheduled.application.service;

import buzz.scheduled.domain.nostr.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers the signatures of accepted authentication events for a fixed time so each header is accepted once
 * (NIP-98 replay guard), in memory and bounded. Keyed by the BIP-340 signature, not the event id: a client that
 * signs the same request twice within one second makes the same event id with a fresh signature (BIP-340 signing
 * takes fresh auxiliary randomness), which is a new request, while a captured header repeats its signature
 * exactly, and BIP-340 signatures are strongly unforgeable, so nobody without the key can make another valid one
 * for the same id. Signatures are kept for {@code retention} after first use; when more than {@code capacity}
 * distinct ones arrive within that time the oldest are forgotten early (a flood cannot exhaust memory, at the
 * price of a weaker guard for the oldest entries during the flood). Thread-safe.
 */
final class ReplayCache {
    private final Duration retention;
    private final int capacity;
    private final LinkedHashMap<Signature, Instant> expiries = new LinkedHashMap<>();

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

    /**
     * Records {@code signature} at {@code now}; true when it was not seen within the retention, false for a
     * replay.
     */
    synchronized boolean firstUse(Signature signature, Instant now) {
        forgetExpired(now);
        Instant expiry = expiries.get(signature);
        if (expiry != null && expiry.isAfter(now)) {
            return false;
        }
        expiries.remove(signature);
        if (expiries.size() >= capacity) {
            Iterator<Signature> eldest = expiries.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
        expiries.put(signature, now.plus(retention));
        return true;
    }

    /** Number of signatures currently remembered. */
    synchronized int size() {
        return expiries.size();
    }

    private void forgetExpired(Instant now) {
        Iterator<Map.Entry<Signature, Instant>> entries = expiries.entrySet().iterator();
        while (entries.hasNext()) {
            // Insertion order is expiry order as long as the clock does not jump back; a backwards jump only
            // delays forgetting, it never forgets a signature early.
            if (entries.next().getValue().isAfter(now)) {
                return;
            }
            entries.remove();
        }
    }
}

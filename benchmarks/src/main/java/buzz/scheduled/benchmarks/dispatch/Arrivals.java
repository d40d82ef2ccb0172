package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.benchmarks.dispatch.LoopbackRelay.Receipt;
import java.util.Arrays;
import java.util.Map;

/**
 * What reached the relay in one phase, judged against what was due: how many of the expected event ids arrived,
 * anything unexpected or repeated, and each arrival's lateness (first arrival minus due time). An arrival before its
 * due time is counted as early: the one thing that must never happen (docs/delivery.md).
 *
 * @param expected       event ids that were due
 * @param received       expected ids that arrived at least once
 * @param strays         ids that arrived but were never due in this phase
 * @param duplicates     arrivals beyond the first, over all ids
 * @param early          expected ids whose first arrival came before their due time
 * @param latenessNanos  first arrival minus due time of every expected id that arrived, nanoseconds (unsorted)
 * @param lastArrival    latest first arrival of an expected id, epoch nanoseconds (0 when none arrived)
 */
record Arrivals(int expected, int received, int strays, long duplicates, int early, long[] latenessNanos,
                long lastArrival) {

    Arrivals {
        if (expected < 0 || received < 0 || received > expected || strays < 0 || duplicates < 0 || early < 0
                || early > received || latenessNanos == null || latenessNanos.length != received) {
            throw new IllegalArgumentException("inconsistent arrival counts: expected " + expected + ", received "
                    + received + ", early " + early + ", samples " + (latenessNanos == null ? null : latenessNanos.length));
        }
    }

    /**
     * Compares the relay's receipts with the due times.
     *
     * @param dueSeconds due time of every expected event id, Unix seconds (the event's {@code created_at})
     * @param receipts   what the relay recorded, by event id
     */
    static Arrivals of(Map<String, Long> dueSeconds, Map<String, Receipt> receipts) {
        long[] lateness = new long[dueSeconds.size()];
        int received = 0;
        int early = 0;
        long duplicates = 0;
        long last = 0;
        for (Map.Entry<String, Long> due : dueSeconds.entrySet()) {
            Receipt receipt = receipts.get(due.getKey());
            if (receipt == null) {
                continue;
            }
            long late = receipt.firstNanos() - due.getValue() * 1_000_000_000L;
            if (late < 0) {
                early++;
            }
            lateness[received++] = late;
            last = Math.max(last, receipt.firstNanos());
        }
        int strays = 0;
        for (Map.Entry<String, Receipt> receipt : receipts.entrySet()) {
            duplicates += receipt.getValue().count() - 1;
            if (!dueSeconds.containsKey(receipt.getKey())) {
                strays++;
            }
        }
        return new Arrivals(dueSeconds.size(), received, strays, duplicates, early, Arrays.copyOf(lateness, received),
                last);
    }

    /** Expected ids that never arrived. */
    int missing() {
        return expected - received;
    }

    /** Every due id arrived, none early, nothing unexpected. */
    boolean complete() {
        return received == expected && early == 0 && strays == 0;
    }
}

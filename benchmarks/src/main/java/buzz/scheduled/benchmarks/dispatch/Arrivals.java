package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.benchmarks.dispatch.LoopbackRelay.Receipt;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
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

    /**
     * One due second of a steady phase and how late its latest message was.
     *
     * @param offset          seconds after the phase's first due second
     * @param messages        its messages that arrived
     * @param maxLatenessNanos the latest of their first arrivals minus the due time, nanoseconds
     */
    record LateSecond(long offset, int messages, long maxLatenessNanos) {
    }

    /**
     * The {@code limit} due seconds whose latest message arrived latest, worst first: where a high percentile
     * comes from (one stalled second, or a spread).
     *
     * @param dueSeconds due time of every expected event id, Unix seconds
     * @param receipts   what the relay recorded, by event id
     */
    static List<LateSecond> worstSeconds(Map<String, Long> dueSeconds, Map<String, Receipt> receipts, int limit) {
        long first = dueSeconds.values().stream().mapToLong(Long::longValue).min().orElse(0);
        Map<Long, long[]> bySecond = new HashMap<>();
        for (Map.Entry<String, Long> due : dueSeconds.entrySet()) {
            Receipt receipt = receipts.get(due.getKey());
            if (receipt != null) {
                long late = receipt.firstNanos() - due.getValue() * 1_000_000_000L;
                long[] second = bySecond.computeIfAbsent(due.getValue(), s -> new long[] {0, Long.MIN_VALUE});
                second[0]++;
                second[1] = Math.max(second[1], late);
            }
        }
        List<LateSecond> seconds = new ArrayList<>();
        bySecond.forEach((second, tally) -> seconds.add(new LateSecond(second - first, (int) tally[0], tally[1])));
        seconds.sort(Comparator.comparingLong(LateSecond::maxLatenessNanos).reversed());
        return List.copyOf(seconds.subList(0, Math.min(limit, seconds.size())));
    }
}

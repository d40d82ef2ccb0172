package buzz.scheduled.benchmarks.admission;

import java.util.Arrays;

/**
 * Exact percentiles of a set of request latencies (every sample kept, nearest-rank method: the p-th percentile is
 * the smallest sample with at least p % of the samples at or below it).
 *
 * @param count samples
 * @param p50   median, nanoseconds
 * @param p90   nanoseconds
 * @param p99   nanoseconds
 * @param p999  99.9th percentile, nanoseconds
 * @param max   nanoseconds
 * @param mean  nanoseconds
 */
public record LatencySummary(int count, long p50, long p90, long p99, long p999, long max, double mean) {

    public LatencySummary {
        if (count < 0 || p50 > p90 || p90 > p99 || p99 > p999 || p999 > max) {
            throw new IllegalArgumentException("percentiles must be ordered and the count non-negative");
        }
    }

    /**
     * Summarises the first {@code count} entries of {@code nanos} (left unchanged).
     *
     * @throws IllegalArgumentException when {@code count} is 0 or beyond the array
     */
    public static LatencySummary of(long[] nanos, int count) {
        if (count < 1 || count > nanos.length) {
            throw new IllegalArgumentException("need 1.." + nanos.length + " samples, got " + count);
        }
        long[] sorted = Arrays.copyOf(nanos, count);
        Arrays.sort(sorted);
        double sum = 0;
        for (long sample : sorted) {
            sum += sample;
        }
        return new LatencySummary(count, rank(sorted, 500), rank(sorted, 900), rank(sorted, 990), rank(sorted, 999),
                sorted[count - 1], sum / count);
    }

    // Integer arithmetic: 99.9 / 100 × 1000 in doubles rounds up to the 1000th sample instead of the 999th.
    private static long rank(long[] sorted, long perMille) {
        long rank = (perMille * sorted.length + 999) / 1000;
        return sorted[(int) Math.max(rank, 1) - 1];
    }
}

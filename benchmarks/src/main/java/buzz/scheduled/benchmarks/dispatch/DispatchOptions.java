package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.benchmarks.admission.BenchmarkMain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the dispatch benchmark runs; every field has a default and a {@code --name=value} option.
 *
 * @param databaseUrl    admin connection to a PostgreSQL on 127.0.0.1 where a scratch database per phase is created
 *                       and dropped ({@code BUZZ_BENCH_DATABASE_URL}, default {@value #DEFAULT_DATABASE_URL})
 * @param messages       due messages of each burn-down (default 20 000)
 * @param warmup         messages of the warm-up burn-down each side runs first, not measured (default 20 000, as many
 *                       as the burn-down: after 2 000 the JIT was still compiling the hot paths of both sides, and
 *                       the measured burn-down paid for it; 0 skips it)
 * @param window         our dispatcher's window of frames in flight ({@code BUZZ_MAX_IN_FLIGHT}, default 1 000)
 * @param claimBatch     our dispatcher's largest claim ({@code BUZZ_CLAIM_BATCH_SIZE}, default 500)
 * @param dbSchedulers   db-scheduler configurations to try; the best of them is what the ratio divides by (default:
 *                       32 and 64 threads, each with lock-and-fetch 0.5/1.0 and 1.0/4.0)
 * @param pollInterval   db-scheduler's polling interval (default 100 ms; its own default is 10 s)
 * @param rates          messages due per whole second in the steady phases, one phase per rate (default 50, 1 000)
 * @param steadyDuration how many seconds of due times each steady phase spans (default 60)
 * @param dbSchedulerLateness whether db-scheduler (its best burn-down configuration) also runs the steady phases
 *                       (default true)
 * @param timeCap        a burn-down that has not finished after this long is cut off and reported (default 900 s, the
 *                       sidecar's lateness limit); a steady phase waits at most 120 s after its last due second
 * @param seed           seed of the keys, channels and contents (default 1)
 * @throws IllegalArgumentException naming the option that is out of range
 */
record DispatchOptions(String databaseUrl, int messages, int warmup, int window, int claimBatch,
                       List<DbSchedulerConfiguration> dbSchedulers, Duration pollInterval, List<Integer> rates,
                       int steadyDuration, boolean dbSchedulerLateness, Duration timeCap, long seed) {

    /** The admin URL used when {@code BUZZ_BENCH_DATABASE_URL} is unset. */
    static final String DEFAULT_DATABASE_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    /** The environment variable naming the admin database URL. */
    static final String DATABASE_URL_VARIABLE = "BUZZ_BENCH_DATABASE_URL";

    static final String USAGE = """
            usage: java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.dispatch.DispatchToRelay \\
                     [--messages=20000] [--warmup=20000] [--window=1000] [--claim=500] \\
                     [--dbs-threads=32,64] [--dbs-limits=0.5:1.0,1.0:4.0] [--dbs-poll-ms=100] \\
                     [--rates=50,1000] [--steady-seconds=60] [--dbs-lateness=true] [--max-seconds=900] [--seed=1]
            environment: BUZZ_BENCH_DATABASE_URL (default %s); must point at 127.0.0.1
            """.formatted(DEFAULT_DATABASE_URL);

    /**
     * One db-scheduler set-up.
     *
     * @param threads    execution threads
     * @param lowerLimit lock-and-fetch: fetch again when this many executions per thread are left
     * @param upperLimit lock-and-fetch: fetch up to this many executions per thread
     */
    record DbSchedulerConfiguration(int threads, double lowerLimit, double upperLimit) {
        DbSchedulerConfiguration {
            requireRange("--dbs-threads", threads, 1, 1_000);
            if (!(lowerLimit > 0 && lowerLimit <= 10)) {
                throw new IllegalArgumentException("--dbs-limits: the lower limit must be above 0 and at most 10, got "
                        + lowerLimit);
            }
            if (!(upperLimit >= lowerLimit && upperLimit <= 100)) {
                throw new IllegalArgumentException("--dbs-limits: the upper limit must be from the lower ("
                        + lowerLimit + ") to 100, got " + upperLimit);
            }
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d threads, lock-and-fetch %.1f/%.1f", threads, lowerLimit, upperLimit);
        }
    }

    DispatchOptions {
        if (databaseUrl == null || databaseUrl.isBlank()) {
            throw new IllegalArgumentException(DATABASE_URL_VARIABLE + " is empty");
        }
        requireRange("--messages", messages, 1, 1_000_000);
        requireRange("--warmup", warmup, 0, 1_000_000);
        requireRange("--window", window, 1, 10_000);
        requireRange("--claim", claimBatch, 1, window);
        if (dbSchedulers == null || dbSchedulers.isEmpty()) {
            throw new IllegalArgumentException("--dbs-threads and --dbs-limits must name at least one configuration");
        }
        dbSchedulers = List.copyOf(dbSchedulers);
        if (pollInterval == null || pollInterval.toMillis() < 10 || pollInterval.toMillis() > 60_000) {
            throw new IllegalArgumentException("--dbs-poll-ms must be 10..60000, got "
                    + (pollInterval == null ? null : pollInterval.toMillis()));
        }
        if (rates == null || rates.isEmpty()) {
            throw new IllegalArgumentException("--rates must name at least one rate");
        }
        for (int rate : rates) {
            requireRange("--rates", rate, 1, 10_000);
        }
        rates = List.copyOf(rates);
        requireRange("--steady-seconds", steadyDuration, 1, 600);
        if (timeCap == null || timeCap.toSeconds() < 1) {
            throw new IllegalArgumentException("--max-seconds must be at least 1, got "
                    + (timeCap == null ? null : timeCap.toSeconds()));
        }
    }

    /** Messages of the steady phase at {@code rate}: {@code rate × steadyDuration}. */
    int steadyMessages(int rate) {
        return rate * steadyDuration;
    }

    /**
     * Reads {@code --name=value} arguments over the defaults.
     *
     * @param args        command-line arguments
     * @param environment the process environment (only {@value #DATABASE_URL_VARIABLE} is read)
     * @throws IllegalArgumentException for an unknown option, a missing {@code =value} or a value of the wrong
     *                                  kind, naming it
     */
    static DispatchOptions parse(List<String> args, Map<String, String> environment) {
        String databaseUrl = environment.getOrDefault(DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL);
        int messages = 20_000;
        int warmup = 20_000;
        int window = 1_000;
        int claim = 500;
        List<Integer> threads = List.of(32, 64);
        List<double[]> limits = List.of(new double[] {0.5, 1.0}, new double[] {1.0, 4.0});
        long pollMillis = 100;
        List<Integer> rates = List.of(50, 1_000);
        int steadySeconds = 60;
        boolean dbSchedulerLateness = true;
        long maxSeconds = 900;
        long seed = 1;
        for (String arg : args) {
            Map.Entry<String, String> option = BenchmarkMain.option(arg);
            String name = option.getKey();
            String value = option.getValue();
            switch (name) {
                case "messages" -> messages = whole(name, value);
                case "warmup" -> warmup = whole(name, value);
                case "window" -> window = whole(name, value);
                case "claim" -> claim = whole(name, value);
                case "dbs-threads" -> threads = wholes(name, value);
                case "dbs-limits" -> limits = limitPairs(name, value);
                case "dbs-poll-ms" -> pollMillis = whole(name, value);
                case "rates" -> rates = wholes(name, value);
                case "steady-seconds" -> steadySeconds = whole(name, value);
                case "dbs-lateness" -> dbSchedulerLateness = bool(name, value);
                case "max-seconds" -> maxSeconds = whole(name, value);
                case "seed" -> seed = whole(name, value);
                default -> throw new IllegalArgumentException("unknown option --" + name);
            }
        }
        List<DbSchedulerConfiguration> configurations = new ArrayList<>();
        for (int t : threads) {
            for (double[] pair : limits) {
                configurations.add(new DbSchedulerConfiguration(t, pair[0], pair[1]));
            }
        }
        return new DispatchOptions(databaseUrl, messages, warmup, window, claim, configurations,
                Duration.ofMillis(pollMillis), rates, steadySeconds, dbSchedulerLateness, Duration.ofSeconds(maxSeconds),
                seed);
    }

    private static void requireRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " must be " + min + ".." + max + ", got " + value);
        }
    }

    private static int whole(String name, String value) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, got \"" + value + "\"");
        }
    }

    private static List<Integer> wholes(String name, String value) {
        List<Integer> numbers = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            numbers.add(whole(name, part));
        }
        return numbers;
    }

    private static List<double[]> limitPairs(String name, String value) {
        List<double[]> pairs = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String[] bounds = part.split(":", -1);
            if (bounds.length != 2) {
                throw new IllegalArgumentException("--" + name + " must be lower:upper pairs separated by commas, got \""
                        + value + "\"");
            }
            pairs.add(new double[] {decimal(name, bounds[0]), decimal(name, bounds[1])});
        }
        return pairs;
    }

    private static double decimal(String name, String value) {
        try {
            double parsed = Double.parseDouble(value.strip());
            if (!Double.isFinite(parsed)) {
                throw new NumberFormatException();
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a decimal number, got \"" + value + "\"");
        }
    }

    private static boolean bool(String name, String value) {
        return switch (value.strip()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("--" + name + " must be true or false, got \"" + value + "\"");
        };
    }
}

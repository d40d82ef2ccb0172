package buzz.scheduled.benchmarks.dispatch;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How the dispatch benchmark runs; every field has a default and a {@code --name=value} option.
 *
 * @param databaseUrl    admin connection to a PostgreSQL on 127.0.0.1 where a scratch database per phase is created
 *                       and dropped ({@code BUZZ_BENCH_DATABASE_URL}, default {@value #DEFAULT_DATABASE_URL})
 * @param messages       due messages of each burn-down (default 20 000)
 * @param warmup         messages of the warm-up burn-down each side runs first, not measured (default 2 000; 0 skips it)
 * @param inFlight       our dispatcher's most sends in flight and claim batch, and db-scheduler's thread count (32,
 *                       the production default {@code BUZZ_MAX_IN_FLIGHT})
 * @param lowerLimit     db-scheduler lock-and-fetch: fetch again when this many executions per thread are left (0.5)
 * @param upperLimit     db-scheduler lock-and-fetch: fetch up to this many executions per thread (1.0: no more than
 *                       the threads, like our claim batch of at most the free send slots)
 * @param pollInterval   db-scheduler's polling interval (default 100 ms; its own default is 10 s)
 * @param rate           messages due per whole second in the steady phases (default 50)
 * @param steadyDuration how many seconds of due times the steady phases span (default 60)
 * @param dbSchedulerLateness whether db-scheduler also runs the steady phase (default true)
 * @param timeCap        a burn-down that has not finished after this long is cut off and reported (default 900 s,
 *                       the sidecar's lateness limit: later than that, messages would fail {@code expired}); a steady
 *                       phase waits at most 120 s after its last due second
 * @param seed           seed of the keys, channels and contents (default 1)
 * @throws IllegalArgumentException naming the option that is out of range
 */
record DispatchOptions(String databaseUrl, int messages, int warmup, int inFlight, double lowerLimit, double upperLimit,
                       Duration pollInterval, int rate, int steadyDuration, boolean dbSchedulerLateness,
                       Duration timeCap, long seed) {

    /** The admin URL used when {@code BUZZ_BENCH_DATABASE_URL} is unset. */
    static final String DEFAULT_DATABASE_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    /** The environment variable naming the admin database URL. */
    static final String DATABASE_URL_VARIABLE = "BUZZ_BENCH_DATABASE_URL";

    static final String USAGE = """
            usage: java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.dispatch.DispatchToRelay \\
                     [--messages=20000] [--warmup=2000] [--in-flight=32] [--dbs-lower=0.5] [--dbs-upper=1.0] [--dbs-poll-ms=100] \\
                     [--rate=50] [--steady-seconds=60] [--dbs-lateness=true] [--max-seconds=900] [--seed=1]
            environment: BUZZ_BENCH_DATABASE_URL (default %s); must point at 127.0.0.1
            """.formatted(DEFAULT_DATABASE_URL);

    DispatchOptions {
        if (databaseUrl == null || databaseUrl.isBlank()) {
            throw new IllegalArgumentException(DATABASE_URL_VARIABLE + " is empty");
        }
        requireRange("--messages", messages, 1, 1_000_000);
        requireRange("--warmup", warmup, 0, 1_000_000);
        requireRange("--in-flight", inFlight, 1, 1_000);
        if (!(lowerLimit > 0 && lowerLimit <= 10)) {
            throw new IllegalArgumentException("--dbs-lower must be above 0 and at most 10, got " + lowerLimit);
        }
        if (!(upperLimit >= lowerLimit && upperLimit <= 100)) {
            throw new IllegalArgumentException("--dbs-upper must be from --dbs-lower (" + lowerLimit
                    + ") to 100, got " + upperLimit);
        }
        if (pollInterval == null || pollInterval.toMillis() < 10 || pollInterval.toMillis() > 60_000) {
            throw new IllegalArgumentException("--dbs-poll-ms must be 10..60000, got "
                    + (pollInterval == null ? null : pollInterval.toMillis()));
        }
        requireRange("--rate", rate, 1, 1_000);
        requireRange("--steady-seconds", steadyDuration, 1, 600);
        if (timeCap == null || timeCap.toSeconds() < 1) {
            throw new IllegalArgumentException("--max-seconds must be at least 1, got "
                    + (timeCap == null ? null : timeCap.toSeconds()));
        }
    }

    /** Messages of one steady phase: {@code rate × steadyDuration}. */
    int steadyMessages() {
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
        int warmup = 2_000;
        int inFlight = 32;
        double lower = 0.5;
        double upper = 1.0;
        long pollMillis = 100;
        int rate = 50;
        int steadySeconds = 60;
        boolean dbSchedulerLateness = true;
        long maxSeconds = 900;
        long seed = 1;
        for (String arg : args) {
            int equals = arg.indexOf('=');
            if (!arg.startsWith("--") || equals < 0) {
                throw new IllegalArgumentException("expected --name=value, got \"" + arg + "\"");
            }
            String name = arg.substring(2, equals);
            String value = arg.substring(equals + 1);
            switch (name) {
                case "messages" -> messages = whole(name, value);
                case "warmup" -> warmup = whole(name, value);
                case "in-flight" -> inFlight = whole(name, value);
                case "dbs-lower" -> lower = decimal(name, value);
                case "dbs-upper" -> upper = decimal(name, value);
                case "dbs-poll-ms" -> pollMillis = whole(name, value);
                case "rate" -> rate = whole(name, value);
                case "steady-seconds" -> steadySeconds = whole(name, value);
                case "dbs-lateness" -> dbSchedulerLateness = bool(name, value);
                case "max-seconds" -> maxSeconds = whole(name, value);
                case "seed" -> seed = whole(name, value);
                default -> throw new IllegalArgumentException("unknown option --" + name);
            }
        }
        return new DispatchOptions(databaseUrl, messages, warmup, inFlight, lower, upper, Duration.ofMillis(pollMillis), rate,
                steadySeconds, dbSchedulerLateness, Duration.ofSeconds(maxSeconds), seed);
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

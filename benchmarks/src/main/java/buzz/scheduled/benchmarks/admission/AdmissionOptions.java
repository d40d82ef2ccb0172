package buzz.scheduled.benchmarks.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How the admission benchmark runs; every field has a default and a {@code --name=value} option.
 *
 * @param databaseUrl  admin connection to a PostgreSQL on 127.0.0.1 where a scratch database is created and dropped
 *                     ({@code BUZZ_BENCH_DATABASE_URL}, default {@value #DEFAULT_DATABASE_URL})
 * @param concurrency  concurrent HTTP clients of each measured level, in order (default 16 and 64)
 * @param requests     measured creates per level (default 20 000)
 * @param warmup       creates before the first level, at the highest concurrency, not measured (default 20 000: on
 *                     two cores the server JVM's one C2 thread was still compiling the request path after 10 000
 *                     creates, and a level measured then showed half the steady rate at twice its CPU per create)
 * @param owners       distinct owner keys the creates are spread over (default 1 000)
 * @param channels     distinct channels the creates are spread over (default 200)
 * @param round        target length of one round of load; NIP-98 headers are signed just before each round, so a
 *                     round must end well inside the ±60 s window (default 10 s, at most 40 s)
 * @param timeCap      the whole run stops issuing requests after this long (default 20 minutes)
 * @param seed         seed of the keys, channels, due times and contents (default 1)
 * @param replayStore  where the NIP-98 replay guard keeps accepted headers: {@code postgres} (production's shared
 *                     store, default) or {@code memory} (the in-process store, to measure what the shared one costs);
 *                     in process only
 * @param serve        where the API runs: empty for the stack wired in this JVM on a scratch database (default),
 *                     {@code start} for a {@code serve} process the benchmark starts on its embedded PostgreSQL, or
 *                     the {@code http://127.0.0.1:<port>} of a running {@code serve}
 * @param serveJar     the jar a started {@code serve} runs ({@code --serve-jar}; default
 *                     {@value #DEFAULT_SERVE_JAR} when it exists, else this class path)
 * @param serveJvm     options for a started {@code serve}'s JVM ({@code --serve-jvm}, space-separated, e.g. a JFR
 *                     recording)
 * @param servePid     a running {@code serve}'s JVM pid, for its CPU time ({@code --serve-pid}; 0: unknown)
 * @param serveData    a running {@code serve}'s {@code BUZZ_DATA_DIR}, for its embedded database's CPU time,
 *                     statements and rows ({@code --serve-data-dir}; empty: unknown)
 * @throws IllegalArgumentException naming the option that is out of range
 */
record AdmissionOptions(String databaseUrl, List<Integer> concurrency, int requests, int warmup, int owners,
                        int channels, Duration round, Duration timeCap, long seed, String replayStore,
                        String serve, String serveJar, List<String> serveJvm, long servePid, String serveData) {

    /** The admin URL used when {@code BUZZ_BENCH_DATABASE_URL} is unset. */
    static final String DEFAULT_DATABASE_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    /** The environment variable naming the admin database URL. */
    static final String DATABASE_URL_VARIABLE = "BUZZ_BENCH_DATABASE_URL";
    /** The operator's jar as {@code ./mvnw package} leaves it, relative to the repository root. */
    static final String DEFAULT_SERVE_JAR = "bootstrap/target/buzz-scheduled-delivery.jar";

    static final String USAGE = """
            usage: java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.admission.AdmissionOverHttp \\
                     [--concurrency=16,64] [--requests=20000] [--warmup=20000] [--owners=1000] [--channels=200] \\
                     [--round-seconds=10] [--max-seconds=1200] [--seed=1] \\
                     [--replay-store=postgres|memory] \\
                     [--serve=start|http://127.0.0.1:<port>] [--serve-jar=<jar>] [--serve-jvm='<options>'] \\
                     [--serve-pid=<pid>] [--serve-data-dir=<BUZZ_DATA_DIR>]
            environment: BUZZ_BENCH_DATABASE_URL (default %s); must point at 127.0.0.1
            """.formatted(DEFAULT_DATABASE_URL);

    AdmissionOptions {
        if (databaseUrl == null || databaseUrl.isBlank()) {
            throw new IllegalArgumentException(DATABASE_URL_VARIABLE + " is empty");
        }
        if (concurrency == null || concurrency.isEmpty()) {
            throw new IllegalArgumentException("--concurrency needs at least one level");
        }
        for (int clients : concurrency) {
            if (clients < 1 || clients > 1024) {
                throw new IllegalArgumentException("--concurrency levels must be 1..1024, got " + clients);
            }
        }
        concurrency = List.copyOf(concurrency);
        if (requests < 1 || requests > 1_000_000) {
            throw new IllegalArgumentException("--requests must be 1..1000000, got " + requests);
        }
        if (warmup < 0 || warmup > 1_000_000) {
            throw new IllegalArgumentException("--warmup must be 0..1000000, got " + warmup);
        }
        if (owners < 1 || owners > 100_000) {
            throw new IllegalArgumentException("--owners must be 1..100000, got " + owners);
        }
        if (channels < 1 || channels > 100_000) {
            throw new IllegalArgumentException("--channels must be 1..100000, got " + channels);
        }
        if (round == null || round.toSeconds() < 1 || round.toSeconds() > 40) {
            throw new IllegalArgumentException("--round-seconds must be 1..40 (NIP-98 headers live ±60 s), got "
                    + (round == null ? null : round.toSeconds()));
        }
        if (!"postgres".equals(replayStore) && !"memory".equals(replayStore)) {
            throw new IllegalArgumentException("--replay-store must be postgres or memory, got " + replayStore);
        }
        if (serve == null || !(serve.isEmpty() || "start".equals(serve) || serve.startsWith("http://127.0.0.1:"))) {
            throw new IllegalArgumentException("--serve must be start or http://127.0.0.1:<port>, got " + serve);
        }
        if (serveJar == null || serveJvm == null || serveData == null || servePid < 0) {
            throw new IllegalArgumentException("--serve-jar, --serve-jvm, --serve-pid and --serve-data-dir need values");
        }
        serveJvm = List.copyOf(serveJvm);
        if (timeCap == null || timeCap.toSeconds() < 1) {
            throw new IllegalArgumentException("--max-seconds must be at least 1, got "
                    + (timeCap == null ? null : timeCap.toSeconds()));
        }
    }

    /** The highest concurrency level (the warm-up runs at it). */
    int maxConcurrency() {
        return concurrency.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /**
     * Reads {@code --name=value} arguments over the defaults.
     *
     * @param args        command-line arguments
     * @param environment the process environment (only {@value #DATABASE_URL_VARIABLE} is read)
     * @throws IllegalArgumentException for an unknown option, a missing {@code =value} or a value that is not a
     *                                  number, naming it
     */
    static AdmissionOptions parse(List<String> args, Map<String, String> environment) {
        String databaseUrl = environment.getOrDefault(DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL);
        List<Integer> concurrency = List.of(16, 64);
        int requests = 20_000;
        int warmup = 20_000;
        int owners = 1_000;
        int channels = 200;
        long roundSeconds = 10;
        long maxSeconds = 1_200;
        long seed = 1;
        String replayStore = "postgres";
        String serve = "";
        String serveJar = "";
        List<String> serveJvm = List.of();
        long servePid = 0;
        String serveData = "";
        for (String arg : args) {
            Map.Entry<String, String> option = BenchmarkMain.option(arg);
            String name = option.getKey();
            String value = option.getValue();
            switch (name) {
                case "concurrency" -> concurrency = intList(name, value);
                case "requests" -> requests = Math.toIntExact(number(name, value));
                case "warmup" -> warmup = Math.toIntExact(number(name, value));
                case "owners" -> owners = Math.toIntExact(number(name, value));
                case "channels" -> channels = Math.toIntExact(number(name, value));
                case "round-seconds" -> roundSeconds = number(name, value);
                case "max-seconds" -> maxSeconds = number(name, value);
                case "seed" -> seed = number(name, value);
                case "replay-store" -> replayStore = value.strip();
                case "serve" -> serve = value.strip();
                case "serve-jar" -> serveJar = value.strip();
                case "serve-jvm" -> serveJvm = value.isBlank() ? List.of() : List.of(value.strip().split("\\s+"));
                case "serve-pid" -> servePid = number(name, value);
                case "serve-data-dir" -> serveData = value.strip();
                default -> throw new IllegalArgumentException("unknown option --" + name);
            }
        }
        return new AdmissionOptions(databaseUrl, concurrency, requests, warmup, owners, channels,
                Duration.ofSeconds(roundSeconds), Duration.ofSeconds(maxSeconds), seed, replayStore, serve, serveJar, serveJvm,
                servePid, serveData);
    }

    private static long number(String name, String value) {
        try {
            long parsed = Long.parseLong(value.strip());
            if (parsed > Integer.MAX_VALUE || parsed < Integer.MIN_VALUE) {
                throw new IllegalArgumentException("--" + name + " is out of range: " + value);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, got \"" + value + "\"");
        }
    }

    private static List<Integer> intList(String name, String value) {
        List<Integer> values = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            values.add(Math.toIntExact(number(name, part)));
        }
        return values;
    }
}

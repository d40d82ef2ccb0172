package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.benchmarks.admission.SignedCreates.Create;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Admission throughput and latency over real HTTP (issue 4): {@code POST /v1/scheduled-messages} with a fresh
 * NIP-98 header per request and really signed events, so every create pays two BIP-340 verifications (header and
 * event), strict JSON reading, the admission rules and one PostgreSQL insert transaction. The stack is the
 * production one wired by hand ({@link AdmissionStack}) on a scratch database, where clients and server share this
 * JVM; or, with {@code --serve}, a real {@code serve} process on its embedded PostgreSQL ({@link ServeTarget}),
 * measured from outside (its JVM's and PostgreSQL's CPU from {@code /proc}, statements from
 * {@code pg_stat_statements}). Traffic stays on 127.0.0.1.
 *
 * <p>Runs a warm-up, then each concurrency level with a fixed number of creates, prints one table row per level
 * (creates/s; p50, p90, p99, p99.9 and max latency of the {@code 201} answers; this JVM's CPU time per create, a
 * figure other processes on a shared machine disturb less than the rest, and the same for the database's backends;
 * the status mix; the load average before and after) and checks that the database holds exactly one row per {@code 201}. Exit status: 0 when every
 * answer was {@code 201} and the rows match; 3 when the run finished but some answers were not {@code 201}, rows
 * are missing, or the time cap cut it short; 2 for bad options; 1 when the set-up failed.
 */
public final class AdmissionOverHttp {
    private static final PrintStream OUT = System.out;

    private AdmissionOverHttp() {
    }

    /**
     * Runs the benchmark; see {@link AdmissionOptions#USAGE} for the options.
     *
     * @param args {@code --name=value} options
     */
    public static void main(String[] args) {
        BenchmarkMain.exitWith("admission benchmark", args, AdmissionOptions::parse, AdmissionOptions::databaseUrl, AdmissionOptions.USAGE,
                AdmissionOverHttp::run);
    }

    private static int run(AdmissionOptions options) {
        long startNanos = System.nanoTime();
        long deadline = startNanos + options.timeCap().toNanos();
        OUT.printf(Locale.ROOT, "Admission over HTTP, %s%n", Instant.now());
        OUT.printf(Locale.ROOT, "JVM %s %s, %d processors, load average %s%n", System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), Runtime.getRuntime().availableProcessors(), loadAverage());
        if (!options.serve().isEmpty()) {
            try (AdmissionTarget target = serveTarget(options)) {
                return run(options, target, startNanos, deadline);
            }
        }
        try (ScratchDatabase database = ScratchDatabase.create(options.databaseUrl());
             AdmissionStack stack = AdmissionStack.start(database.url(), options.replayStore())) {
            database.closeBeforeDrop(stack);
            OUT.printf(Locale.ROOT, "scratch database %s; NIP-98 replay store: %s%n", database.name(),
                    options.replayStore());
            return run(options, stack, startNanos, deadline);
        }
    }

    private static AdmissionTarget serveTarget(AdmissionOptions options) {
        if (!"start".equals(options.serve())) {
            return ServeTarget.attach(URI.create(options.serve()),
                    options.servePid() == 0 ? OptionalLong.empty() : OptionalLong.of(options.servePid()),
                    options.serveData().isEmpty() ? Optional.empty() : Optional.of(Path.of(options.serveData())));
        }
        Optional<Path> jar = options.serveJar().isEmpty()
                ? Optional.of(Path.of(AdmissionOptions.DEFAULT_SERVE_JAR)).filter(Files::isRegularFile)
                : Optional.of(Path.of(options.serveJar()));
        OUT.printf(Locale.ROOT, "starting serve from %s%s%n", jar.map(Path::toString).orElse("this class path"),
                options.serveJvm().isEmpty() ? "" : " with JVM options " + String.join(" ", options.serveJvm()));
        return ServeTarget.start(jar, options.serveJvm());
    }

    private static int run(AdmissionOptions options, AdmissionTarget stack, long startNanos, long deadline) {
        OUT.println(stack.describe());
        requireReady(stack.baseUrl());
        SignedCreates signed = new SignedCreates(options.owners(), options.channels(), stack.baseUrl(),
                options.seed());
        int total = options.warmup() + options.requests() * options.concurrency().size();
        long signingStart = System.nanoTime();
        List<Create> all = signed.prepare(0, total, Instant.now());
        OUT.printf(Locale.ROOT, "signed %d events by %d owners in %d channels in %.1f s (before the load)%n",
                total, options.owners(), options.channels(), (System.nanoTime() - signingStart) / 1e9);
        LoadDriver driver = new LoadDriver(stack.baseUrl(), signed, options.round(), stack);

        long created = 0;
        boolean clean = true;
        if (options.warmup() > 0) {
            LoadDriver.Result warmup = driver.run(all.subList(0, options.warmup()), options.maxConcurrency(),
                    deadline);
            created += warmup.created();
            OUT.printf(Locale.ROOT, "warm-up: %d creates at %d clients, %.0f creates/s, statuses %s (not counted)%n",
                    warmup.sent(), warmup.clients(), warmup.createsPerSecond(), warmup.statuses());
            if (warmup.created() == 0) {
                throw new IllegalStateException("no create succeeded during the warm-up; first answer: "
                        + warmup.firstFailure());
            }
            clean &= report(warmup);
        }
        stack.resetStatementProfile();
        long measured = 0;
        List<String> rows = new ArrayList<>();
        int offset = options.warmup();
        for (int clients : options.concurrency()) {
            String before = loadAverage();
            LoadDriver.Result result = driver.run(all.subList(offset, offset + options.requests()), clients,
                    deadline);
            String after = loadAverage();
            offset += options.requests();
            created += result.created();
            measured += result.created();
            clean &= report(result);
            rows.add(row(result, before, after));
            OUT.println("level done: " + rows.getLast());
            if (result.stoppedAtCap()) {
                break;
            }
        }
        OUT.println();
        OUT.println(header());
        rows.forEach(OUT::println);
        OUT.println();
        List<String> profile = stack.statementProfile(Math.max(1, measured));
        if (!profile.isEmpty()) {
            OUT.println("where the database's time went over the measured levels (pg_stat_statements, per create):");
            profile.forEach(OUT::println);
            OUT.println();
        }
        long stored = stack.storedMessages();
        if (stored < 0) {
            OUT.printf(Locale.ROOT, "rows stored: not checked (no data directory), 201 answers: %d%n", created);
            stored = created;
        } else {
            OUT.printf(Locale.ROOT, "rows stored: %d, 201 answers (warm-up included): %d%s%n", stored, created,
                    stored == created ? "" : "  MISMATCH");
        }
        OUT.printf(Locale.ROOT, "run took %.1f s; load average now %s%n", (System.nanoTime() - startNanos) / 1e9,
                loadAverage());
        return clean && stored == created ? 0 : 3;
    }

    /** Prints what went wrong in a run; true when nothing did. */
    private static boolean report(LoadDriver.Result result) {
        boolean clean = true;
        if (result.created() != result.sent()) {
            OUT.printf(Locale.ROOT, "  %d clients: %d of %d answers were not 201: %s; first: %s%n", result.clients(),
                    result.sent() - result.created(), result.sent(), result.statuses(), result.firstFailure());
            clean = false;
        }
        if (result.stoppedAtCap()) {
            OUT.printf(Locale.ROOT, "  %d clients: stopped by the time cap after %d requests%n", result.clients(),
                    result.sent());
            clean = false;
        }
        if (result.oldestHeader().toSeconds() > 50) {
            OUT.printf(Locale.ROOT, "  %d clients: a round lasted %d s from signing; NIP-98 headers may have expired "
                    + "(use a smaller --round-seconds)%n", result.clients(), result.oldestHeader().toSeconds());
        }
        return clean;
    }

    private static String header() {
        return String.format(Locale.ROOT, "%7s %8s %8s %9s %7s %7s %7s %8s %7s %7s %10s %9s %9s %6s  %-14s %s",
                "clients", "creates", "seconds", "creates/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms",
                "mean ms", "JVM cpu ms", "PG cpu ms", "stmts/cr", "rounds", "statuses", "load avg before -> after");
    }

    private static String row(LoadDriver.Result result, String loadBefore, String loadAfter) {
        String statuses = result.statuses().entrySet().stream()
                .map(e -> e.getKey() + "×" + e.getValue())
                .collect(Collectors.joining(","));
        if (result.created() == 0) {
            return String.format(Locale.ROOT, "%7d %8d  (no 201 answers)  %s", result.clients(), result.sent(),
                    statuses);
        }
        LatencySummary latency = result.latency();
        return String.format(Locale.ROOT, "%7d %8d %8.1f %9.0f %7.1f %7.1f %7.1f %8.1f %7.1f %7.1f %10.2f %9.2f %9.2f %6d  %-14s %s -> %s",
                result.clients(), result.created(), result.loadNanos() / 1e9, result.createsPerSecond(),
                millis(latency.p50()), millis(latency.p90()), millis(latency.p99()), millis(latency.p999()),
                millis(latency.max()), latency.mean() / 1e6, result.cpuMillisPerCreate(), result.databaseMillisPerCreate(),
                result.statementsPerCreate(), result.rounds(), statuses,
                loadBefore, loadAfter);
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    /** The 1, 5 and 15 minute load averages from {@code /proc/loadavg}, or {@code n/a}. */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).strip().split("\\s+");
            return String.join(" ", Arrays.copyOf(fields, 3));
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }

    private static void requireReady(URI baseUrl) {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> ready = client.send(HttpRequest.newBuilder(URI.create(baseUrl + "/readyz"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (ready.statusCode() != 200) {
                throw new IllegalStateException("GET /readyz answered " + ready.statusCode() + ": " + ready.body());
            }
        } catch (IOException e) {
            throw new IllegalStateException("GET /readyz failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking readiness", e);
        }
    }
}

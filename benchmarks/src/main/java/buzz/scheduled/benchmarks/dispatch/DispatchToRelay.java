package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.benchmarks.admission.BenchmarkMain;
import buzz.scheduled.benchmarks.admission.LatencySummary;
import buzz.scheduled.benchmarks.admission.ScratchDatabase;
import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;

/**
 * Dispatch throughput and lateness (issue 5): the sidecar's {@code Dispatcher} against db-scheduler 16.9.0 on the same
 * PostgreSQL, both publishing really signed events through the sidecar's {@code RelayClient} over a real WebSocket to
 * the same in-JVM {@link LoopbackRelay} on 127.0.0.1, which answers {@code OK true} at once and records when each event
 * id arrived.
 *
 * <p>Phases, each on a fresh scratch database: a warm-up burn-down per side (not measured); the burn-down of
 * {@code --messages} messages all due already, first by the sidecar, then by db-scheduler (time from start until the
 * last event reached the relay and until the database recorded every one as done → messages/s, and the ratio of the
 * two); then steady lateness: {@code --rate} messages due per whole second for {@code --steady-seconds}, stored ahead,
 * lateness = first arrival at the relay − due time, for the sidecar and (unless {@code --dbs-lateness=false})
 * db-scheduler. Every phase checks that exactly the due event ids arrived and none before its due time.
 *
 * <p>Exit status: 0 when every phase delivered every event exactly as due and the database agreed; 3 when a phase was
 * cut by the time cap, missed or repeated an id, delivered one early, or its set-up overran the steady lead; 2 for bad
 * options; 1 when the set-up failed.
 */
public final class DispatchToRelay {
    private static final PrintStream OUT = System.out;
    // The benchmark is its own composition root, like bootstrap: the system clock.
    private static final WallClock CLOCK = Instant::now;
    /** How far ahead of set-up the steady phases' first due second lies (signing and storing happen in between). */
    private static final Duration STEADY_LEAD = Duration.ofSeconds(20);
    /** How long after its last due second a steady phase waits for stragglers. */
    private static final Duration STEADY_GRACE = Duration.ofSeconds(120);
    /** How many of a steady phase's latest due seconds its report names. */
    private static final int WORST_SECONDS = 3;
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);

    private DispatchToRelay() {
    }

    /**
     * Runs the benchmark; see {@link DispatchOptions#USAGE} for the options.
     *
     * @param args {@code --name=value} options
     */
    public static void main(String[] args) {
        BenchmarkMain.exitWith("dispatch benchmark", args, DispatchOptions::parse, DispatchOptions::databaseUrl, DispatchOptions.USAGE,
                DispatchToRelay::run);
    }

    /** Makes one side on a scratch database, talking to the relay at the URL. */
    @FunctionalInterface
    private interface Side {
        SchedulerUnderTest create(DatabaseUrl database, URI relay);
    }

    private static int run(DispatchOptions options) {
        long runStart = System.nanoTime();
        OUT.printf(Locale.ROOT, "Dispatch to a loopback relay, %s%n", CLOCK.now());
        OUT.printf(Locale.ROOT, "JVM %s %s, %d processors, load average %s; PostgreSQL %s%n",
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                Runtime.getRuntime().availableProcessors(), loadAverage(), serverVersion(options.databaseUrl()));
        Side sidecar = (database, relay) -> SidecarDispatch.create(database, relay, options.window(),
                options.claimBatch(), CLOCK);
        List<DispatchOptions.DbSchedulerConfiguration> configurations = options.dbSchedulers();
        try (LoopbackRelay relay = LoopbackRelay.start(CLOCK)) {
            OUT.printf(Locale.ROOT, "relay at %s%n", relay.url());
            DueEvents signer = new DueEvents(options.seed());
            long signingStart = System.nanoTime();
            long dueSecond = CLOCK.now().getEpochSecond() - 1;
            List<DueEvent> burnDown = signer.sign(0, options.messages(), n -> dueSecond);
            OUT.printf(Locale.ROOT, "signed %d events by %d owners in %d channels, all due at %s, in %.1f s%n",
                    burnDown.size(), DueEvents.OWNERS, DueEvents.CHANNELS, Instant.ofEpochSecond(dueSecond),
                    (System.nanoTime() - signingStart) / 1e9);

            boolean clean = true;
            int warmup = Math.min(options.warmup(), burnDown.size());
            if (warmup > 0) {
                for (Side side : List.of(sidecar, dbScheduler(options, configurations.get(0)))) {
                    BurnDown result = burnDown(options, side, relay, burnDown.subList(0, warmup));
                    OUT.println("warm-up (not counted): " + result.row());
                    clean &= result.clean();
                }
            }
            BurnDown ours = burnDown(options, sidecar, relay, burnDown);
            report("burn-down", ours);
            clean &= ours.clean();
            List<BurnDown> theirs = new ArrayList<>();
            for (DispatchOptions.DbSchedulerConfiguration configuration : configurations) {
                BurnDown result = burnDown(options, dbScheduler(options, configuration), relay, burnDown);
                report("burn-down", result);
                clean &= result.clean();
                theirs.add(result);
            }
            int best = 0;
            for (int i = 1; i < theirs.size(); i++) {
                if (theirs.get(i).rate() > theirs.get(best).rate()) {
                    best = i;
                }
            }
            DispatchOptions.DbSchedulerConfiguration bestConfiguration = configurations.get(best);

            List<Steady> steadies = new ArrayList<>();
            int first = options.messages();
            for (int rate : options.rates()) {
                List<Side> sides = options.dbSchedulerLateness()
                        ? List.of(sidecar, dbScheduler(options, bestConfiguration)) : List.of(sidecar);
                for (Side side : sides) {
                    Steady result = steady(options, rate, side, relay, signer, first);
                    first += options.steadyMessages(rate);
                    OUT.println("steady: " + result.row());
                    OUT.println("  outcomes: " + result.outcomes());
                    OUT.println("  latest due seconds: " + result.worstSeconds());
                    clean &= result.clean();
                    steadies.add(result);
                }
            }

            OUT.println();
            OUT.println(BurnDown.header());
            OUT.println(ours.row());
            theirs.forEach(result -> OUT.println(result.row()));
            BurnDown bestTheirs = theirs.get(best);
            OUT.printf(Locale.ROOT, "best db-scheduler: %s%n", bestConfiguration);
            OUT.printf(Locale.ROOT, "ratio sidecar / best db-scheduler: %.2f (until recorded in the database), %.2f "
                    + "(until the last event reached the relay)%n", ours.rate() / bestTheirs.rate(),
                    ours.relayRate() / bestTheirs.relayRate());
            OUT.println();
            OUT.println(Steady.header());
            steadies.forEach(result -> OUT.println(result.row()));
            OUT.println();
            if (relay.unexpectedMessages() > 0) {
                OUT.printf(Locale.ROOT, "the relay got %d messages that were not EVENTs%n", relay.unexpectedMessages());
                clean = false;
            }
            OUT.printf(Locale.ROOT, "run took %.1f s; load average now %s; %s%n", (System.nanoTime() - runStart) / 1e9,
                    loadAverage(), clean ? "every check passed" : "SOME CHECK FAILED (see above)");
            return clean ? 0 : 3;
        }
    }

    private static Side dbScheduler(DispatchOptions options, DispatchOptions.DbSchedulerConfiguration configuration) {
        return (database, relay) -> DbSchedulerDispatch.create(database, relay, configuration.threads(),
                configuration.lowerLimit(), configuration.upperLimit(), options.pollInterval(), CLOCK);
    }

    private static void report(String phase, BurnDown result) {
        OUT.println(phase + ": " + result.row());
        OUT.println("  " + result.configuration());
        OUT.println("  outcomes: " + result.outcomes());
    }

    // ---------------------------------------------------------------------------------------------------
    // Burn-down

    /**
     * One burn-down.
     *
     * @param databaseNanos from start until the database recorded every message as done; -1 when cut off
     * @param relayNanos    from start until the last message first reached the relay; -1 when not all did
     */
    private record BurnDown(String scheduler, String configuration, int messages, long insertNanos, long relayNanos,
                            long databaseNanos, long jvmCpuNanos, long databaseCpuNanos, Arrivals arrivals,
                            long completed, Map<String, Long> outcomes, DatabaseActivity activity,
                            String loadBefore, String loadAfter) {

        BurnDown with(DatabaseActivity databaseActivity) {
            return new BurnDown(scheduler, configuration, messages, insertNanos, relayNanos, databaseNanos, jvmCpuNanos,
                    databaseCpuNanos, arrivals, completed, outcomes, databaseActivity, loadBefore, loadAfter);
        }

        double rate() {
            return databaseNanos > 0 ? messages / (databaseNanos / 1e9) : 0;
        }

        double relayRate() {
            return relayNanos > 0 ? messages / (relayNanos / 1e9) : 0;
        }

        boolean clean() {
            return databaseNanos > 0 && arrivals.complete() && completed == messages;
        }

        static String header() {
            return String.format(Locale.ROOT, "%-18s %8s %8s %8s %7s %10s %9s %6s %8s %8s %8s %4s %5s %6s  %s",
                    "scheduler", "messages", "relay s", "db s", "msg/s", "JVM cpu ms", "PG cpu ms", "tx", "rows read",
                    "distinct", "db done", "dup", "early", "insert", "load avg before -> after");
        }

        String row() {
            double transactions = activity == null ? Double.NaN : (double) activity.transactions() / messages;
            double rowsRead = activity == null ? Double.NaN : (double) activity.rowsReturned() / messages;
            return String.format(Locale.ROOT,
                    "%-18s %8d %8.2f %8.2f %7.0f %10.3f %9.3f %6.3f %9.1f %8d %8d %4d %5d %5.1fs  %s -> %s%s",
                    scheduler, messages, relayNanos / 1e9, databaseNanos / 1e9, rate(), jvmCpuNanos / 1e6 / messages,
                    databaseCpuNanos / 1e6 / messages, transactions, rowsRead, arrivals.received(), completed,
                    arrivals.duplicates(), arrivals.early(), insertNanos / 1e9, loadBefore, loadAfter,
                    clean() ? "" : "  " + problems());
        }

        String problems() {
            List<String> problems = new ArrayList<>();
            if (databaseNanos < 0) {
                problems.add("CUT OFF by --max-seconds");
            }
            if (arrivals.missing() > 0) {
                problems.add(arrivals.missing() + " ids MISSING at the relay");
            }
            if (arrivals.strays() > 0) {
                problems.add(arrivals.strays() + " UNEXPECTED ids");
            }
            if (arrivals.early() > 0) {
                problems.add(arrivals.early() + " EARLY");
            }
            if (completed != messages) {
                problems.add("database records " + completed + " of " + messages + " as done");
            }
            return String.join(", ", problems);
        }
    }

    private static BurnDown burnDown(DispatchOptions options, Side side, LoopbackRelay relay, List<DueEvent> events) {
        try (ScratchDatabase database = ScratchDatabase.create(options.databaseUrl())) {
            BurnDown result;
            try (SchedulerUnderTest scheduler = side.create(database.url(), relay.url())) {
                database.closeBeforeDrop(scheduler);
                long insertStart = System.nanoTime();
                scheduler.insert(events);
                long insertNanos = System.nanoTime() - insertStart;
                scheduler.connect();
                Map<String, Long> dueSeconds = dueSeconds(events);
                String loadBefore = loadAverage();
                long jvmCpu = processCpuNanos();
                long databaseCpu = scheduler.databaseCpuNanos();
                LoopbackRelay.Recording recording = relay.record();
                long startEpochNanos = epochNanos(CLOCK.now());
                long start = System.nanoTime();
                long deadline = start + options.timeCap().toNanos();
                scheduler.start();
                boolean arrived = awaitArrivals(scheduler.name(), recording, events.size(), start, deadline);
                long databaseNanos = arrived ? awaitCompleted(scheduler, events.size(), start, deadline) : -1;
                jvmCpu = processCpuNanos() - jvmCpu;
                databaseCpu = scheduler.databaseCpuNanos() - databaseCpu;
                String loadAfter = loadAverage();
                Arrivals arrivals = Arrivals.of(dueSeconds, recording.receipts());
                long relayNanos = arrivals.received() == events.size() ? arrivals.lastArrival() - startEpochNanos : -1;
                result = new BurnDown(scheduler.name(), scheduler.configuration(), events.size(), insertNanos,
                        relayNanos, databaseNanos, jvmCpu, databaseCpu, arrivals, scheduler.completed(),
                        scheduler.outcomes(), null, loadBefore, loadAfter);
            }
            // Every session has ended (the scheduler closed its pool): the database's statistics are complete.
            return result.with(DatabaseActivity.after(DatabaseUrl.parse(options.databaseUrl()), database.name()));
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // Steady lateness

    /**
     * One steady phase.
     *
     * @param overran whether set-up ended less than half a second before the first due second
     */
    private record Steady(String scheduler, int rate, Arrivals arrivals, List<Arrivals.LateSecond> worst,
                          long completed, Map<String, Long> outcomes, boolean overran, boolean cutOff,
                          String loadBefore, String loadAfter) {

        boolean clean() {
            return arrivals.complete() && completed == arrivals.expected() && !overran && !cutOff;
        }

        static String header() {
            return String.format(Locale.ROOT, "%-18s %6s %8s %8s %5s %7s %7s %7s %8s %7s %7s  %s", "scheduler", "rate/s",
                    "messages", "received", "early", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "mean ms",
                    "load avg before -> after");
        }

        String row() {
            String problems = clean() ? "" : "  " + String.join(", ", problems());
            if (arrivals.received() == 0) {
                return String.format(Locale.ROOT, "%-18s %6d %8d %8d  (nothing arrived)%s", scheduler, rate,
                        arrivals.expected(), 0, problems);
            }
            LatencySummary lateness = LatencySummary.of(arrivals.latenessNanos(), arrivals.received());
            return String.format(Locale.ROOT, "%-18s %6d %8d %8d %5d %7.1f %7.1f %7.1f %8.1f %7.1f %7.1f  %s -> %s%s",
                    scheduler, rate, arrivals.expected(), arrivals.received(), arrivals.early(), lateness.p50() / 1e6,
                    lateness.p90() / 1e6, lateness.p99() / 1e6, lateness.p999() / 1e6, lateness.max() / 1e6,
                    lateness.mean() / 1e6, loadBefore, loadAfter, problems);
        }

        /** The latest due seconds, as "+12 s: 50 messages, last 162.6 ms late". */
        String worstSeconds() {
            List<String> seconds = new ArrayList<>();
            for (Arrivals.LateSecond second : worst) {
                seconds.add(String.format(Locale.ROOT, "+%d s: %d messages, last %.1f ms late", second.offset(),
                        second.messages(), second.maxLatenessNanos() / 1e6));
            }
            return String.join("; ", seconds);
        }

        List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (overran) {
                problems.add("SET-UP OVERRAN the first due second");
            }
            if (cutOff) {
                problems.add("CUT OFF " + STEADY_GRACE.toSeconds() + " s after the last due second");
            }
            if (arrivals.missing() > 0) {
                problems.add(arrivals.missing() + " ids MISSING at the relay");
            }
            if (arrivals.strays() > 0) {
                problems.add(arrivals.strays() + " UNEXPECTED ids");
            }
            if (arrivals.early() > 0) {
                problems.add(arrivals.early() + " EARLY");
            }
            if (completed != arrivals.expected()) {
                problems.add("database records " + completed + " of " + arrivals.expected() + " as done");
            }
            return problems;
        }
    }

    private static Steady steady(DispatchOptions options, int rate, Side side, LoopbackRelay relay,
                                 DueEvents signer, int first) {
        try (ScratchDatabase database = ScratchDatabase.create(options.databaseUrl());
             SchedulerUnderTest scheduler = side.create(database.url(), relay.url())) {
            database.closeBeforeDrop(scheduler);
            scheduler.connect();
            // Signing and storing must finish before the first due second: more lead for more messages.
            int count = options.steadyMessages(rate);
            long firstDue = CLOCK.now().getEpochSecond() + STEADY_LEAD.toSeconds() + count / 2_000;
            List<DueEvent> events = signer.sign(first, count, n -> firstDue + n / rate);
            scheduler.insert(events);
            Map<String, Long> dueSeconds = dueSeconds(events);
            LoopbackRelay.Recording recording = relay.record();
            Instant startedAt = CLOCK.now();
            boolean overran = startedAt.isAfter(Instant.ofEpochSecond(firstDue).minusMillis(500));
            long start = System.nanoTime();
            Instant lastDue = Instant.ofEpochSecond(firstDue + options.steadyDuration() - 1);
            Duration wait = Duration.between(startedAt, lastDue).plus(STEADY_GRACE);
            long deadline = start + wait.toNanos();
            String loadBefore = loadAverage();
            scheduler.start();
            boolean arrived = awaitArrivals(scheduler.name(), recording, events.size(), start, deadline);
            boolean recorded = arrived && awaitCompleted(scheduler, events.size(), start, deadline) > 0;
            String loadAfter = loadAverage();
            Arrivals arrivals = Arrivals.of(dueSeconds, recording.receipts());
            return new Steady(scheduler.name(), rate, arrivals,
                    Arrivals.worstSeconds(dueSeconds, recording.receipts(), WORST_SECONDS), scheduler.completed(),
                    scheduler.outcomes(), overran, !recorded, loadBefore, loadAfter);
        }
    }

    // ---------------------------------------------------------------------------------------------------

    /** Waits until {@code count} distinct ids reached the relay; prints progress; false when the deadline passed. */
    private static boolean awaitArrivals(String name, LoopbackRelay.Recording recording, int count, long start,
                                         long deadline) {
        long nextProgress = start + PROGRESS_EVERY.toNanos();
        while (recording.distinct() < count) {
            long now = System.nanoTime();
            if (now > deadline) {
                OUT.printf(Locale.ROOT, "  %s: deadline passed with %d of %d at the relay%n", name,
                        recording.distinct(), count);
                return false;
            }
            if (now > nextProgress) {
                OUT.printf(Locale.ROOT, "  %s: %d of %d at the relay after %.0f s%n", name, recording.distinct(),
                        count, (now - start) / 1e9);
                nextProgress += PROGRESS_EVERY.toNanos();
            }
            LockSupport.parkNanos(1_000_000);
        }
        return true;
    }

    /** Polls the database until it records {@code count} as done; nanoseconds since start, or -1 at the deadline. */
    private static long awaitCompleted(SchedulerUnderTest scheduler, int count, long start, long deadline) {
        while (scheduler.completed() < count) {
            if (System.nanoTime() > deadline) {
                return -1;
            }
            LockSupport.parkNanos(5_000_000);
        }
        return System.nanoTime() - start;
    }

    private static Map<String, Long> dueSeconds(List<DueEvent> events) {
        Map<String, Long> due = new HashMap<>(events.size() * 2);
        for (DueEvent event : events) {
            due.put(event.id(), event.dueSecond());
        }
        return due;
    }

    private static long epochNanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    /** CPU time of this JVM so far (all threads: both schedulers, the relay, JIT and GC), nanoseconds. */
    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
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

    private static String serverVersion(String adminUrl) {
        DatabaseUrl admin = DatabaseUrl.parse(adminUrl);
        Properties properties = new Properties();
        admin.user().ifPresent(user -> properties.setProperty("user", user));
        admin.password().ifPresent(password -> properties.setProperty("password", password));
        try (Connection connection = DriverManager.getConnection(admin.jdbcUrl(), properties);
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SHOW server_version")) {
            rows.next();
            return rows.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + admin + " does not answer: " + e.getMessage(), e);
        }
    }
}

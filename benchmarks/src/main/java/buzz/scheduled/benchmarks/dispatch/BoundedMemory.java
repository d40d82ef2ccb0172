package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.postgres.SchemaMigrator;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.benchmarks.admission.BenchmarkMain;
import buzz.scheduled.benchmarks.admission.ScratchDatabase;
import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import com.sun.management.GarbageCollectionNotificationInfo;
import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Whether the sidecar's delivery holds memory and connections in proportion to the backlog: for each backlog size
 * (default 10,000 and 100,000 rows all due), the rows are written to a scratch database, and the sidecar's
 * dispatcher (wired as in production, {@link SidecarDispatch}) runs alone in a child JVM with a fixed heap (and a
 * fixed young generation of a quarter of it) until
 * every row is published to the loopback relay. The child reports the peak heap in use, the peak live heap after a
 * garbage collection, and the peak pool connections in use and open, sampled every 5 ms. Bounded means these stay
 * flat as the backlog grows tenfold: the window (1,000 frames, 16 MiB) and the claim size bound what is held, not
 * the number of due rows.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.dispatch.BoundedMemory
 * [--sizes=10000,100000] [--heap-mib=256]}; {@code BUZZ_BENCH_DATABASE_URL} names the admin database (default
 * {@value DispatchOptions#DEFAULT_DATABASE_URL}).
 */
public final class BoundedMemory {
    private static final PrintStream OUT = System.out;
    private static final WallClock CLOCK = Instant::now;
    private static final String RESULT = "RESULT ";
    private static final String USAGE = """
            usage: java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.dispatch.BoundedMemory \\
                     [--sizes=10000,100000] [--heap-mib=256]
            environment: BUZZ_BENCH_DATABASE_URL (default %s); must point at 127.0.0.1
            """.formatted(DispatchOptions.DEFAULT_DATABASE_URL);

    private BoundedMemory() {
    }

    /**
     * The options.
     *
     * @param databaseUrl the admin database URL
     * @param sizes       the backlogs to run, rows all due
     * @param heapMib     the child JVM's heap ({@code -Xms} and {@code -Xmx}), MiB
     */
    record Options(String databaseUrl, List<Integer> sizes, int heapMib) {
        static Options parse(List<String> args, Map<String, String> environment) {
            List<Integer> sizes = List.of(10_000, 100_000);
            int heap = 256;
            for (String arg : args) {
                Map.Entry<String, String> option = BenchmarkMain.option(arg);
                String name = option.getKey();
                String value = option.getValue();
                try {
                    switch (name) {
                        case "sizes" -> sizes = java.util.Arrays.stream(value.split(",")).map(String::strip)
                                .map(Integer::valueOf).toList();
                        case "heap-mib" -> heap = Integer.parseInt(value);
                        default -> throw new IllegalArgumentException("unknown option --" + name);
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--" + name + " must be whole numbers, got \"" + value + "\"");
                }
            }
            if (sizes.isEmpty() || sizes.stream().anyMatch(n -> n < 1 || n > 1_000_000)) {
                throw new IllegalArgumentException("--sizes must be 1..1000000 each, got " + sizes);
            }
            if (heap < 64 || heap > 8_192) {
                throw new IllegalArgumentException("--heap-mib must be 64..8192, got " + heap);
            }
            return new Options(environment.getOrDefault(DispatchOptions.DATABASE_URL_VARIABLE,
                    DispatchOptions.DEFAULT_DATABASE_URL), sizes, heap);
        }
    }

    /** What the child measured for one backlog. */
    record Peaks(int rows, double seconds, long heapUsedPeak, long liveAfterGcPeak, int poolActivePeak,
                 int poolTotalPeak, long collections) {
        static Peaks parse(int rows, String line) {
            String[] f = line.substring(RESULT.length()).strip().split(" ");
            return new Peaks(rows, Double.parseDouble(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                    Integer.parseInt(f[3]), Integer.parseInt(f[4]), Long.parseLong(f[5]));
        }

        String row() {
            return String.format(Locale.ROOT, "%9d %8.1f %14.1f %16.1f %12d %11d %6d", rows, seconds,
                    heapUsedPeak / 1048576.0, liveAfterGcPeak / 1048576.0, poolActivePeak, poolTotalPeak,
                    collections);
        }
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code --name=value} options
     */
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("--child")) {
            System.exit(child(args));
        }
        BenchmarkMain.exitWith("bounded-memory benchmark", args, Options::parse, Options::databaseUrl, USAGE,
                BoundedMemory::run);
    }

    private static int run(Options options) {
        OUT.printf(Locale.ROOT, "Bounded memory: the sidecar's dispatcher alone in a JVM of %d MiB, %s%n",
                options.heapMib(), CLOCK.now());
        List<Peaks> results = new ArrayList<>();
        boolean clean = true;
        try (LoopbackRelay relay = LoopbackRelay.start(CLOCK)) {
            DueEvents signer = new DueEvents(1);
            for (int size : options.sizes()) {
                try (ScratchDatabase database = ScratchDatabase.create(options.databaseUrl())) {
                    long dueSecond = CLOCK.now().getEpochSecond() - 1;
                    try (HikariDataSource pool = PostgresDataSources.create(database.url(), PoolSettings.DEFAULT)) {
                        new SchemaMigrator(pool).migrate();
                        for (int from = 0; from < size; from += 10_000) {
                            List<DueEvent> slice = signer.sign(from, Math.min(size, from + 10_000) - from,
                                    n -> dueSecond);
                            DueRows.insert(pool, slice);
                        }
                    }
                    LoopbackRelay.Recording recording = relay.record();
                    Peaks peaks = runChild(options, database.url(), relay.url(), size);
                    results.add(peaks);
                    boolean complete = recording.distinct() == size && recording.events() == size;
                    clean &= complete;
                    OUT.printf(Locale.ROOT, "%d rows: %d distinct events at the relay, %d EVENT messages%s%n", size,
                            recording.distinct(), recording.events(), complete ? "" : "  INCOMPLETE OR DUPLICATED");
                }
            }
        }
        OUT.println();
        OUT.println("     rows  seconds  heap peak MiB  live peak MiB*  pool in use  pool open    GCs");
        results.forEach(peaks -> OUT.println(peaks.row()));
        OUT.println("* the largest heap still in use right after a garbage collection");
        if (results.size() >= 2) {
            Peaks small = results.get(0);
            Peaks large = results.get(results.size() - 1);
            OUT.printf(Locale.ROOT, "%d× the rows: live peak %.2f×, heap peak %.2f×, pool in use %d -> %d%n",
                    large.rows() / small.rows(), (double) large.liveAfterGcPeak() / small.liveAfterGcPeak(),
                    (double) large.heapUsedPeak() / small.heapUsedPeak(), small.poolActivePeak(),
                    large.poolActivePeak());
        }
        OUT.println(clean ? "every row arrived once" : "SOME ROWS DID NOT ARRIVE EXACTLY ONCE");
        return clean ? 0 : 1;
    }

    private static Peaks runChild(Options options, DatabaseUrl database, URI relay, int rows) {
        String java = ProcessHandle.current().info().command().orElse("java");
        // A fixed young generation (a quarter of the heap), so the heap peak shows what is retained rather than how
        // far the collector chose to grow its eden over a longer run.
        List<String> command = List.of(java, "-Xms" + options.heapMib() + "m", "-Xmx" + options.heapMib() + "m",
                "-Xmn" + options.heapMib() / 4 + "m",
                "-cp", System.getProperty("java.class.path"), BoundedMemory.class.getName(), "--child",
                database.jdbcUrl(), database.user().orElse(""), relay.toString(), Integer.toString(rows));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        database.password().ifPresent(password -> builder.environment().put("BUZZ_BENCH_CHILD_PASSWORD", password));
        try {
            Process child = builder.start();
            String result = null;
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.startsWith(RESULT)) {
                        result = line;
                    } else {
                        OUT.println("  child: " + line);
                    }
                }
            }
            if (!child.waitFor(15, TimeUnit.MINUTES) || child.exitValue() != 0 || result == null) {
                child.destroyForcibly();
                throw new IllegalStateException("the child run of " + rows + " rows failed (exit "
                        + (child.isAlive() ? "none" : child.exitValue()) + ")");
            }
            return Peaks.parse(rows, result);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the child JVM: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The child: the dispatcher alone, sampled until every row is published. */
    private static int child(String[] args) {
        String password = System.getenv("BUZZ_BENCH_CHILD_PASSWORD");
        DatabaseUrl database = new DatabaseUrl(args[1], args[2].isEmpty() ? java.util.Optional.empty()
                : java.util.Optional.of(args[2]), java.util.Optional.ofNullable(password));
        URI relay = URI.create(args[3]);
        int rows = Integer.parseInt(args[4]);
        AtomicLong livePeak = new AtomicLong();
        AtomicLong collections = new AtomicLong();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener((notification, handback) -> {
                if (!notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                    return;
                }
                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData());
                long live = info.getGcInfo().getMemoryUsageAfterGc().values().stream()
                        .mapToLong(MemoryUsage::getUsed).sum();
                livePeak.accumulateAndGet(live, Math::max);
                collections.incrementAndGet();
            }, null, null);
        }
        try (SidecarDispatch sidecar = SidecarDispatch.create(database, relay, 1_000, 500, CLOCK)) {
            sidecar.connect();
            long heapPeak = 0;
            int activePeak = 0;
            int totalPeak = 0;
            long started = System.nanoTime();
            long deadline = started + Duration.ofMinutes(10).toNanos();
            sidecar.start();
            while (sidecar.published() < rows) {
                if (System.nanoTime() - deadline > 0) {
                    System.out.println("gave up: " + sidecar.published() + " of " + rows + " published in 10 min");
                    return 1;
                }
                heapPeak = Math.max(heapPeak, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
                int[] connections = sidecar.poolConnections();
                activePeak = Math.max(activePeak, connections[0]);
                totalPeak = Math.max(totalPeak, connections[1]);
                LockSupport.parkNanos(5_000_000); // the sampling interval
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf(Locale.ROOT, RESULT + "%.3f %d %d %d %d %d%n", seconds, heapPeak, livePeak.get(),
                    activePeak, totalPeak, collections.get());
            return 0;
        }
    }
}

package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.postgres.SchemaMigrator;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.benchmarks.admission.BenchmarkMain;
import buzz.scheduled.benchmarks.admission.DatabaseCpu;
import buzz.scheduled.benchmarks.admission.ScratchDatabase;
import buzz.scheduled.benchmarks.admission.ServeProcess;
import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

/**
 * Scale-out on one PostgreSQL (issue 19): one, two and four {@code serve} processes (each its own JVM, started as an
 * operator starts them, from the operator's jar) on one scratch database, publishing to one {@link LoopbackRelay}.
 * For each node count: the nodes start on an empty database and idle for a while (transactions per node per minute,
 * from {@code pg_stat_database}); then a backlog of signed messages, all due in one second a little ahead, is written
 * as admission leaves it, and the nodes drain it together. Reports the drain time (due second to the last first
 * arrival at the relay, and to the database recording every row {@code published}), messages per second, whether
 * every id arrived exactly once and none early, and the nodes' JVM and the database's CPU per message.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.dispatch.ScaleOut \
 *     [--nodes=1,2,4] [--messages=20000] [--idle-seconds=30] [--lead-seconds=60] [--serve-jar=<jar>]
 * }</pre>
 * {@code BUZZ_BENCH_DATABASE_URL} names the admin connection (127.0.0.1 only). Exit 0 when every phase delivered
 * exactly its ids once, none early, all recorded; 3 otherwise; 2 for bad options; 1 when the set-up failed.
 */
public final class ScaleOut {
    private static final PrintStream OUT = System.out;
    private static final WallClock CLOCK = Instant::now;
    private static final String USAGE = """
            usage: java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.dispatch.ScaleOut \\
                     [--nodes=1,2,4] [--messages=20000] [--idle-seconds=30] [--lead-seconds=60] [--serve-jar=<jar>]
            environment: BUZZ_BENCH_DATABASE_URL (default jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres)
            """;

    private ScaleOut() {
    }

    /**
     * How the run goes.
     *
     * @param databaseUrl admin connection of the one PostgreSQL
     * @param nodes       node counts, in order
     * @param messages    backlog size
     * @param idle        how long the nodes idle before the backlog (statements of an idle node)
     * @param lead        how far ahead of signing the backlog's due second lies (signing and writing must fit)
     * @param serveJar    the operator's jar, or empty for this class path
     */
    record Options(String databaseUrl, List<Integer> nodes, int messages, Duration idle, Duration lead,
                   Optional<Path> serveJar) {
        Options {
            if (nodes.isEmpty() || nodes.stream().anyMatch(n -> n < 1 || n > 16)) {
                throw new IllegalArgumentException("--nodes must be 1..16 each, got " + nodes);
            }
            if (messages < 1 || messages > 1_000_000) {
                throw new IllegalArgumentException("--messages must be 1..1000000, got " + messages);
            }
            if (idle.toSeconds() < 5 || lead.toSeconds() < 10) {
                throw new IllegalArgumentException("--idle-seconds must be at least 5 and --lead-seconds at least 10");
            }
        }

        static Options parse(List<String> args, Map<String, String> environment) {
            String url = environment.getOrDefault("BUZZ_BENCH_DATABASE_URL",
                    "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
            List<Integer> nodes = List.of(1, 2, 4);
            int messages = 20_000;
            long idle = 30;
            long lead = 60;
            Optional<Path> jar = Optional.of(Path.of("bootstrap/target/buzz-scheduled-delivery.jar"))
                    .filter(Files::isRegularFile);
            for (String arg : args) {
                Map.Entry<String, String> option = BenchmarkMain.option(arg);
                String value = option.getValue().strip();
                try {
                    switch (option.getKey()) {
                        case "nodes" -> nodes = java.util.Arrays.stream(value.split(",")).map(Integer::valueOf)
                                .toList();
                        case "messages" -> messages = Integer.parseInt(value);
                        case "idle-seconds" -> idle = Long.parseLong(value);
                        case "lead-seconds" -> lead = Long.parseLong(value);
                        case "serve-jar" -> jar = value.isEmpty() ? Optional.empty() : Optional.of(Path.of(value));
                        default -> throw new IllegalArgumentException("unknown option --" + option.getKey());
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--" + option.getKey() + " must be a number, got " + value);
                }
            }
            return new Options(url, nodes, messages, Duration.ofSeconds(idle), Duration.ofSeconds(lead), jar);
        }
    }

    /**
     * One node count's figures.
     *
     * @param idleTransactionsPerNodeMinute transactions an idle node ran per minute
     */
    record Phase(int nodes, int messages, int received, long duplicates, int early, long published,
                 double relaySeconds, double databaseSeconds, double jvmMillisPerMessage,
                 double databaseMillisPerMessage, double idleTransactionsPerNodeMinute, String loadBefore,
                 String loadAfter) {
        boolean clean() {
            return received == messages && duplicates == 0 && early == 0 && published == messages;
        }

        String row() {
            return String.format(Locale.ROOT, "%5d %8d %8.2f %8.2f %8.0f %8d %5d %5d %9d %9.3f %9.3f %12.1f  %s -> %s",
                    nodes, messages, relaySeconds, databaseSeconds, messages / databaseSeconds, received, duplicates,
                    early, published, jvmMillisPerMessage, databaseMillisPerMessage, idleTransactionsPerNodeMinute,
                    loadBefore, loadAfter);
        }

        static String header() {
            return String.format(Locale.ROOT, "%5s %8s %8s %8s %8s %8s %5s %5s %9s %9s %9s %12s  %s", "nodes",
                    "messages", "relay s", "db s", "msg/s", "distinct", "dup", "early", "published", "JVM ms",
                    "PG ms", "idle tx/min", "load avg before -> after");
        }
    }

    /**
     * Runs the phases; see the class comment.
     *
     * @param args {@code --name=value} options
     */
    public static void main(String[] args) {
        BenchmarkMain.exitWith("scale-out benchmark", args, Options::parse, Options::databaseUrl, USAGE,
                ScaleOut::run);
    }

    private static int run(Options options) {
        OUT.printf(Locale.ROOT, "Scale-out on one PostgreSQL, %s; serve from %s; load average %s%n", Instant.now(),
                options.serveJar().map(Path::toString).orElse("this class path"), loadAverage());
        List<Phase> phases = new ArrayList<>();
        for (int nodes : options.nodes()) {
            Phase phase = phase(options, nodes);
            OUT.println("phase done: " + phase.row());
            phases.add(phase);
        }
        OUT.println();
        OUT.println(Phase.header());
        phases.forEach(phase -> OUT.println(phase.row()));
        OUT.println("relay s / db s: from the due second to the last first arrival / to every row published;"
                + " JVM ms: all nodes' CPU per message; PG ms: the database's backends per message;"
                + " idle tx/min: per node");
        return phases.stream().allMatch(Phase::clean) ? 0 : 3;
    }

    private static Phase phase(Options options, int nodeCount) {
        try (ScratchDatabase database = ScratchDatabase.create(options.databaseUrl());
             HikariDataSource pool = PostgresDataSources.create(database.url(),
                     new PoolSettings(2, Duration.ofSeconds(10), "scale-out-bench"));
             LoopbackRelay relay = LoopbackRelay.start(CLOCK)) {
            database.closeBeforeDrop(pool);
            new SchemaMigrator(pool).migrate();
            List<ServeProcess> nodes = startNodes(options, nodeCount, database, relay);
            try {
                // Idle: the nodes have nothing due; what they still ask the database is their standing cost.
                long idleStart = transactions(pool, database.name());
                long idleStartNanos = System.nanoTime();
                LockSupport.parkNanos(options.idle().toNanos());
                double idleMinutes = (System.nanoTime() - idleStartNanos) / 60e9;
                double idlePerNodeMinute = (transactions(pool, database.name()) - idleStart) / idleMinutes / nodeCount;

                long dueSecond = CLOCK.now().plus(options.lead()).getEpochSecond();
                List<DueEvent> events = new DueEvents(2, 1_000).sign(0, options.messages(), n -> dueSecond);
                LoopbackRelay.Recording recording = relay.record();
                DueRows.insert(pool, events);
                if (CLOCK.now().getEpochSecond() >= dueSecond) {
                    throw new IllegalStateException("signing and storing the backlog took longer than its "
                            + options.lead() + " lead; use a larger --lead-seconds");
                }
                // Wait for the due second, then measure CPU from it.
                long untilDue = Duration.between(CLOCK.now(), Instant.ofEpochSecond(dueSecond)).toNanos();
                LockSupport.parkNanos(Math.max(0, untilDue));
                String loadBefore = loadAverage();
                long jvmStart = nodes.stream().mapToLong(ServeProcess::jvmCpuNanos).sum();
                long databaseStart = DatabaseCpu.backendNanos(pool);
                long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                while (recording.distinct() < options.messages() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(2_000_000);
                }
                long published = awaitPublished(pool, options.messages(), deadline);
                long doneNanos = CLOCK.now().toEpochMilli() * 1_000_000L;
                long jvm = nodes.stream().mapToLong(ServeProcess::jvmCpuNanos).sum() - jvmStart;
                long databaseCpu = DatabaseCpu.backendNanos(pool) - databaseStart;
                String loadAfter = loadAverage();
                Map<String, Long> due = new HashMap<>(events.size() * 2);
                events.forEach(event -> due.put(event.id(), event.dueSecond()));
                Arrivals arrivals = Arrivals.of(due, recording.receipts());
                double relaySeconds = (arrivals.lastArrival() - dueSecond * 1_000_000_000L) / 1e9;
                double databaseSeconds = (doneNanos - dueSecond * 1_000_000_000L) / 1e9;
                return new Phase(nodeCount, options.messages(), arrivals.received(), arrivals.duplicates(),
                        arrivals.early(), published, relaySeconds, databaseSeconds,
                        jvm / 1e6 / options.messages(), databaseCpu / 1e6 / options.messages(), idlePerNodeMinute,
                        loadBefore, loadAfter);
            } finally {
                nodes.forEach(ServeProcess::close);
            }
        }
    }

    /** Starts the nodes side by side (each waits for its own readiness); all or none. */
    private static List<ServeProcess> startNodes(Options options, int count, ScratchDatabase database,
                                                 LoopbackRelay relay) {
        Map<String, String> environment = Map.of(
                SidecarConfig.DATABASE_URL, database.url().jdbcUrl(),
                SidecarConfig.RELAY_URL, relay.url().toString());
        List<ServeProcess> started = new ArrayList<>();
        try (ExecutorService starting = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ServeProcess>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(starting.submit(() -> ServeProcess.start(options.serveJar(), environment, List.of())));
            }
            RuntimeException failure = null;
            for (Future<ServeProcess> future : futures) {
                try {
                    started.add(future.get());
                } catch (Exception e) {
                    failure = new IllegalStateException("a node did not start: " + e.getMessage(), e);
                }
            }
            if (failure != null) {
                started.forEach(ServeProcess::close);
                throw failure;
            }
        }
        return started;
    }

    private static long transactions(HikariDataSource pool, String database) {
        // Statistics reach pg_stat_database when a backend reports them (at most once a second while it works,
        // and when it goes idle): good for a window of tens of seconds.
        try (Connection connection = pool.getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?")) {
            connection.createStatement().execute("SELECT pg_stat_clear_snapshot()");
            statement.setString(1, database);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading pg_stat_database failed: " + e.getMessage(), e);
        }
    }

    private static long awaitPublished(HikariDataSource pool, int messages, long deadline) {
        long published = 0;
        do {
            try (Connection connection = pool.getConnection();
                 PreparedStatement statement = connection.prepareStatement(
                         "SELECT count(*) FROM scheduled_message WHERE state = 'published'");
                 ResultSet row = statement.executeQuery()) {
                row.next();
                published = row.getLong(1);
            } catch (SQLException e) {
                throw new IllegalStateException("counting published rows failed: " + e.getMessage(), e);
            }
            if (published >= messages) {
                return published;
            }
            LockSupport.parkNanos(10_000_000);
        } while (System.nanoTime() < deadline);
        return published;
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).strip().split("\\s+");
            return String.join(" ", java.util.Arrays.copyOf(fields, 3));
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }
}

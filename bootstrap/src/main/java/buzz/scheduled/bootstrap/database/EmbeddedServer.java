package buzz.scheduled.bootstrap.database;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL's processes: {@code pg_ctl start} with the server's settings and {@code pg_ctl stop}, the
 * stopping of a postmaster that a killed run left behind, and the running of the PostgreSQL programs with their
 * output in {@value EmbeddedDatabase#LOG_FILE}. Logs as {@link EmbeddedDatabase}, whose start and stop these are.
 */
final class EmbeddedServer {
    /** The server's settings, given on its command line (so a restart by {@link PostmasterWatch} keeps them). */
    private static final java.util.Map<String, String> SERVER_CONFIG = java.util.Collections.unmodifiableMap(
            new java.util.LinkedHashMap<>(java.util.Map.ofEntries(
                    java.util.Map.entry("timezone", "UTC"),
                    java.util.Map.entry("fsync", "on"),
                    java.util.Map.entry("synchronous_commit", "on"),
                    java.util.Map.entry("full_page_writes", "on"),
                    java.util.Map.entry("listen_addresses", "localhost"),
                    java.util.Map.entry("unix_socket_directories", "''"),
                    java.util.Map.entry("password_encryption", "scram-sha-256"),
                    java.util.Map.entry("max_connections", "100"),
                    // Statement statistics for the operator (docs/benchmarks.md reads them): a view after
                    // CREATE EXTENSION pg_stat_statements; gathering costs little next to a statement.
                    java.util.Map.entry("shared_preload_libraries", "pg_stat_statements"),
                    java.util.Map.entry("logging_collector", "on"),
                    java.util.Map.entry("log_filename", "postgresql-%a.log"),
                    java.util.Map.entry("log_truncate_on_rotation", "on"),
                    java.util.Map.entry("log_rotation_age", "1d"))));
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);

    private EmbeddedServer() {
    }

    /** {@code pg_ctl start}, then waits until the application role can connect. */
    static void start(EmbeddedBinaries binaries, Path pgdata, int port, Path log, Duration startupWait,
                      String jdbcUrl) throws IOException {
        List<String> options = new ArrayList<>(List.of("-p", Integer.toString(port)));
        SERVER_CONFIG.forEach((name, value) -> options.addAll(List.of("-c", name + "=" + value)));
        long deadline = System.nanoTime() + startupWait.toNanos();
        int status = run(binaries.command("pg_ctl", List.of("-D", pgdata.toString(), "-o", String.join(" ", options),
                "-w", "-t", Long.toString(Math.max(1, startupWait.toSeconds())), "start")), log,
                startupWait.plusSeconds(10));
        if (status != 0) {
            pgCtlStop(binaries, pgdata, log, Duration.ofSeconds(20)); // when it timed out waiting, not failed
            throw new IOException("embedded PostgreSQL did not start (pg_ctl exited with status " + status + "); see "
                    + log + " and " + pgdata.resolve("log"));
        }
        Properties properties = new Properties();
        properties.setProperty("connectTimeout", "2");
        SQLException last = null;
        do {
            try (Connection connection = DriverManager.getConnection(jdbcUrl, properties)) {
                return;
            } catch (SQLException e) {
                if ("28P01".equals(e.getSQLState()) || "28000".equals(e.getSQLState())) {
                    pgCtlStop(binaries, pgdata, log, Duration.ofSeconds(20));
                    throw new IllegalStateException("the embedded PostgreSQL in " + pgdata + " refused the "
                            + EmbeddedPasswords.APPLICATION_ROLE + " role's password from " + EmbeddedPasswords.FILE
                            + "; remove " + pgdata.resolve(EmbeddedCluster.ROLES_MARKER)
                            + " to have the passwords set again", e);
                }
                last = e;
            }
            try {
                Thread.sleep(100); // the server said it is ready; this only rides out a slow first connection
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        } while (System.nanoTime() < deadline);
        pgCtlStop(binaries, pgdata, log, Duration.ofSeconds(20));
        throw new IOException("embedded PostgreSQL started but does not accept connections; see " + log, last);
    }

    /** {@code pg_ctl stop} (fast shutdown, up to 5 s); a failure is logged, not thrown. */
    static void pgCtlStop(EmbeddedBinaries binaries, Path pgdata, Path log, Duration wait) {
        try {
            int status = run(binaries.command("pg_ctl", List.of("-D", pgdata.toString(), "stop", "-m", "fast", "-t",
                    "5", "-w")), log, wait.plusSeconds(10));
            if (status != 0) {
                LOG.warn("pg_ctl stop exited with status {} (see {})", status, log);
            }
        } catch (IOException e) {
            LOG.warn("stopping embedded PostgreSQL failed: {}", e.getMessage());
        }
    }

    /**
     * Deals with a {@code postmaster.pid} left by a killed run: stops a PostgreSQL still running on this cluster,
     * and removes the file when its process is gone or is now some other program (a reused pid).
     */
    static void clearLeftovers(Path pgdata, Duration stopWait) throws IOException {
        Optional<PostmasterPidFile> pidFile;
        try {
            pidFile = PostmasterPidFile.read(pgdata);
        } catch (IllegalStateException torn) {
            LOG.warn("removing unreadable {}: {}", pgdata.resolve(PostmasterPidFile.NAME), torn.getMessage());
            Files.deleteIfExists(pgdata.resolve(PostmasterPidFile.NAME));
            return;
        }
        if (pidFile.isEmpty()) {
            return;
        }
        PostmasterPidFile file = pidFile.get();
        Optional<ProcessHandle> process = ProcessHandle.of(file.pid()).filter(ProcessHandle::isAlive);
        if (process.isEmpty()) {
            LOG.info("removing stale {} (process {} is gone)", file.file(), file.pid());
            Files.deleteIfExists(file.file());
            return;
        }
        ProcessHandle.Info info = process.get().info();
        if (info.command().isEmpty() || info.arguments().isEmpty()) {
            throw new IllegalStateException(file.file() + " names process " + file.pid() + ", which is running but"
                    + " cannot be inspected; stop it if it is PostgreSQL, or remove the file if it is not");
        }
        if (!isPostmasterOn(info.command().get(), List.of(info.arguments().get()), pgdata)) {
            LOG.info("removing stale {} (process {} is now another program: {})", file.file(), file.pid(),
                    info.command().get());
            Files.deleteIfExists(file.file());
            return;
        }
        LOG.warn("stopping PostgreSQL (pid {}) that a previous run left running on {}", file.pid(), pgdata);
        stop(process.get(), stopWait);
        if (Files.deleteIfExists(file.file())) {
            LOG.info("removed {} left by the stopped server", file.file());
        }
    }

    /** Whether {@code command arguments} is a postmaster started with {@code -D pgdata}. */
    static boolean isPostmasterOn(String command, List<String> arguments, Path pgdata) {
        Path executable = Path.of(command).getFileName();
        if (executable == null || !executable.toString().equals("postgres")) {
            return false;
        }
        Path wanted = pgdata.toAbsolutePath().normalize();
        for (int i = 0; i + 1 < arguments.size(); i++) {
            if (arguments.get(i).equals("-D")) {
                try {
                    return Path.of(arguments.get(i + 1)).toAbsolutePath().normalize().equals(wanted);
                } catch (java.nio.file.InvalidPathException e) {
                    return false;
                }
            }
        }
        return false;
    }

    /**
     * Stops a postmaster: SIGTERM (smart shutdown, which ends at once when its clients are dead), then SIGKILL after
     * {@code wait}; then waits for its server processes so the next start does not find shared memory in use.
     */
    static void stop(ProcessHandle postmaster, Duration wait) {
        List<ProcessHandle> children = postmaster.descendants().toList();
        postmaster.destroy();
        if (!awaitExit(postmaster, wait)) {
            LOG.warn("PostgreSQL (pid {}) did not stop within {} s; killing it", postmaster.pid(), wait.toSeconds());
            postmaster.destroyForcibly();
            awaitExit(postmaster, Duration.ofSeconds(10));
        }
        for (ProcessHandle child : children) {
            if (!awaitExit(child, Duration.ofSeconds(10))) {
                child.destroyForcibly();
                awaitExit(child, Duration.ofSeconds(5));
            }
        }
        if (postmaster.isAlive()) {
            throw new IllegalStateException("PostgreSQL (pid " + postmaster.pid() + ") would not stop");
        }
    }

    static boolean awaitExit(ProcessHandle process, Duration wait) {
        try {
            process.onExit().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return !process.isAlive();
        } catch (ExecutionException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    /** Runs a PostgreSQL program with its output appended to {@code log}; its exit status. */
    static int run(List<String> command, Path log, Duration wait) throws IOException {
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        return await(process, wait);
    }

    static int await(Process process, Duration wait) throws IOException {
        try {
            if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException(process.info().command().orElse("a PostgreSQL program")
                        + " did not finish within " + wait.toSeconds() + " s");
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while waiting for a PostgreSQL program", e);
        }
    }
}

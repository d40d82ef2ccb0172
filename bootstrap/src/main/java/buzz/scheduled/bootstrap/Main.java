package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.http.ServerIdentity;
import buzz.scheduled.adapters.postgres.SchemaMigrator;
import buzz.scheduled.adapters.postgres.SchemaNewerThanBinaryException;
import buzz.scheduled.adapters.relay.signature.KeyFileException;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.signature.SecretKeyFile;
import buzz.scheduled.bootstrap.cli.ClientCommands;
import buzz.scheduled.bootstrap.config.InvalidConfigurationException;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.database.DataDirectoryLockedException;
import buzz.scheduled.bootstrap.database.SidecarDatabase;
import buzz.scheduled.bootstrap.database.UnsafeFileException;
import buzz.scheduled.bootstrap.logging.LogSetup;
import buzz.scheduled.domain.nostr.Nip19;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runnable jar's entry point (after {@code buzz.scheduled.bootstrap.launcher.Launcher} checked the Java version):
 * {@code serve}, {@code migrate} or {@code keygen [--force | --out <file>]}, configured by environment variables, and
 * the client commands of {@link ClientCommands} ({@code schedule}, {@code list}, {@code get}, {@code edit},
 * {@code cancel}, {@code send-now}, {@code wait}), which talk to a running sidecar. {@code --version} anywhere before a
 * lone {@code --}, and {@code --help} on every command, print and exit 0. Exit codes: 0 done, 1 failed while running,
 * 2 bad command line or configuration, 3 the database schema is newer than this build, 9 the Java is older than 21
 * (the launcher's); the client commands add theirs (4 to 8; see {@link ClientCommands}).
 */
public final class Main {

    /** Done. */
    public static final int EXIT_OK = 0;
    /** Failed while running (database unreachable, port taken, ...). */
    public static final int EXIT_FAILED = 1;
    /** Bad command line or configuration. */
    public static final int EXIT_USAGE = 2;
    /** The database was migrated by a newer build; nothing was changed. */
    public static final int EXIT_SCHEMA_NEWER = 3;

    private static final Logger LOG = LoggerFactory.getLogger(Main.class);
    private static final String USAGE = """
            usage: java -jar buzz-scheduled-delivery.jar <command>   (--version: this build's version)
              serve            migrate the database, then serve HTTP and deliver scheduled messages
              migrate          apply database migrations and exit
              keygen [--force] write a new sidecar key to SIDECAR_SECRET_KEY_FILE and print its public key
                               (a line of hex, then a line of npub)
              keygen --out <file>  write a new author key (for the client commands) to <file>
            configuration comes from environment variables (BUZZ_DATA_DIR, DATABASE_URL, HTTP_PORT, ...)
            """ + ClientCommands.SUMMARY;
    private static final String CONFIGURATION = """
            configuration: environment variables (README.md "Configuration", docs/scheduled-messages.md), e.g.
              BUZZ_SCHEDULED_MESSAGES=on  RELAY_URL=ws://127.0.0.1:7777  HTTP_HOST/HTTP_PORT  PUBLIC_BASE_URL
              DATABASE_URL (unset: the embedded PostgreSQL under BUZZ_DATA_DIR, default ./var)
            exit codes: 0 done; 1 failed (the reason on stderr); 2 bad command line or configuration (names the
            variable); 3 the database was migrated by a newer build; 9 the java is older than Java 21""";
    /** Each server command's {@code --help}. */
    private static final Map<String, String> COMMAND_USAGE = Map.of(
            "serve", """
                    usage: java -jar buzz-scheduled-delivery.jar serve
                    Migrates the database, then serves the HTTP API (owner routes, operator routes, /admin,
                    /metrics) and publishes scheduled messages to RELAY_URL when they are due; stops on SIGTERM or
                    SIGINT after in-flight sends finish (BUZZ_SHUTDOWN_GRACE_SECONDS).
                    """ + CONFIGURATION,
            "migrate", """
                    usage: java -jar buzz-scheduled-delivery.jar migrate
                    Applies the database migrations this build has, prints the schema version and exits.
                    """ + CONFIGURATION,
            "keygen", """
                    usage: java -jar buzz-scheduled-delivery.jar keygen [--force]
                           java -jar buzz-scheduled-delivery.jar keygen --out <file>
                    Without --out: writes a new sidecar key (NIP-42 AUTH; the relay must trust its public key) to
                    SIDECAR_SECRET_KEY_FILE (default BUZZ_DATA_DIR/sidecar.key); --force replaces an existing one.
                    With --out: writes a new author key for the client commands (BUZZ_AUTHOR_KEY_FILE or
                    --key-file) to <file>, mode 0600, parent directories made; never replaces a file.
                    Either way it prints the public key: a line of hex, then a line of npub (NIP-19).
                    exit codes: 0 written; 1 the file exists or cannot be written; 2 bad command line""");

    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param environment the environment variables to configure from
     * @param out         where command results go (the public key of {@code keygen}, the report of {@code migrate})
     * @param err         where usage and fatal errors go
     */
    public Main(Map<String, String> environment, PrintStream out, PrintStream err) {
        this.environment = Map.copyOf(environment);
        this.out = out;
        this.err = err;
    }

    /** Runs the command in {@code args}; exits the JVM with a non-zero code on failure. */
    public static void main(String[] args) {
        int code = new Main(System.getenv(), System.out, System.err).run(args);
        if (code != EXIT_OK) {
            System.exit(code);
        }
    }

    /**
     * Runs one command. {@code serve} returns only after a shutdown signal (SIGTERM, SIGINT) closed the sidecar.
     *
     * @return the exit code
     */
    public int run(String[] args) {
        if (args.length == 0) {
            err.println(USAGE);
            return EXIT_USAGE;
        }
        String command = args[0];
        List<String> options = Arrays.asList(args).subList(1, args.length);
        List<String> beforeDashes = options.contains("--") ? options.subList(0, options.indexOf("--")) : options;
        if (command.equals("--version") || command.equals("version") || beforeDashes.contains("--version")) {
            out.println(version());
            return EXIT_OK;
        }
        if (COMMAND_USAGE.containsKey(command) && (beforeDashes.contains("--help") || beforeDashes.contains("-h"))) {
            out.println(COMMAND_USAGE.get(command));
            return EXIT_OK;
        }
        try {
            return switch (command) {
                case "serve" -> noOptions(command, options) ? serve(configured()) : EXIT_USAGE;
                case "migrate" -> noOptions(command, options) ? migrate(configured()) : EXIT_USAGE;
                case "keygen" -> keygen(options);
                case "schedule", "list", "get", "edit", "cancel", "send-now", "wait", "settings" ->
                        new ClientCommands(environment, System.in, out, err, InstantSource.system()).run(command, options);
                case "help", "--help", "-h" -> {
                    out.println(USAGE);
                    yield EXIT_OK;
                }
                default -> {
                    err.println("unknown command '" + command + "'");
                    err.println(USAGE);
                    yield EXIT_USAGE;
                }
            };
        } catch (RuntimeException e) {
            return fail(command, e);
        }
    }

    /** Reads the configuration and applies its logging settings before anything logs. */
    private SidecarConfig configured() {
        SidecarConfig config = SidecarConfig.fromEnvironment(environment);
        LogSetup.apply(config.operations().logLevel(), config.operations().logFormat());
        return config;
    }

    /** {@code buzz-scheduled-delivery <version> (Java <version>)}. */
    static String version() {
        return "buzz-scheduled-delivery " + ServerIdentity.buildVersion() + " (Java " + Runtime.version() + ")";
    }

    private boolean noOptions(String command, List<String> options) {
        if (options.isEmpty()) {
            return true;
        }
        err.println(command + " takes no options (--help, --version), got " + options);
        return false;
    }

    private int serve(SidecarConfig config) {
        long started = System.nanoTime();
        ClassWarmUp.start();
        Sidecar sidecar = new Sidecar();
        CountDownLatch closed = new CountDownLatch(1);
        // Registered before anything starts, so a signal during start-up still stops the embedded database.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("shutting down");
            sidecar.close();
            closed.countDown();
            LOG.info("stopped");
        }, "buzz-shutdown"));
        try {
            sidecar.start(config);
        } catch (Exception e) {
            return fail("serve", e);
        }
        LOG.info("serving on http://{}:{} (scheduled messages {}), started in {} ms", config.http().host(),
                sidecar.httpPort(), config.scheduledMessages() ? "on" : "off", (System.nanoTime() - started) / 1_000_000);
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return EXIT_OK;
    }

    private int migrate(SidecarConfig config) {
        try (SidecarDatabase database = SidecarDatabase.open(config)) {
            SchemaMigrator.MigrationReport report = database.migrate();
            out.println("schema at version " + report.schemaVersion() + ", " + report.applied()
                    + " migration(s) applied");
            return EXIT_OK;
        } catch (Exception e) {
            return fail("migrate", e);
        }
    }

    private int keygen(List<String> options) {
        if (!options.isEmpty() && (options.getFirst().equals("--out") || options.getFirst().startsWith("--out="))) {
            return authorKeygen(options);
        }
        boolean force = options.equals(List.of("--force"));
        if (!options.isEmpty() && !force) {
            err.println("keygen takes --force or --out <file>, got " + options);
            return EXIT_USAGE;
        }
        SidecarConfig config = configured();
        Path file = config.relay().secretKeyFile();
        try {
            SecretKey key = SidecarKeys.generate(file, force);
            LOG.info("wrote a new sidecar key to {} (mode 0600)", file);
            out.println(key.publicKey().hex());
            out.println(Nip19.npub(key.publicKey()));
            return EXIT_OK;
        } catch (IllegalStateException e) {
            err.println("keygen: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    /**
     * {@code keygen --out <file>}: a new author key for the client commands, written 0600 to a file that must not
     * exist yet. Reads no configuration and logs nothing: it is not the sidecar's key.
     */
    private int authorKeygen(List<String> options) {
        String first = options.getFirst();
        List<String> rest = first.startsWith("--out=") ? options.subList(1, options.size())
                : options.subList(Math.min(2, options.size()), options.size());
        String value = first.startsWith("--out=") ? first.substring("--out=".length())
                : options.size() > 1 ? options.get(1) : "";
        if (value.isEmpty() || value.startsWith("--") || !rest.isEmpty()) {
            err.println("keygen --out takes one file name and nothing else (an author key is never replaced), got "
                    + options);
            return EXIT_USAGE;
        }
        Path file;
        try {
            file = Path.of(value);
        } catch (InvalidPathException e) {
            err.println("keygen: '" + value + "' is not a path: " + e.getMessage());
            return EXIT_USAGE;
        }
        try {
            SecretKey key = SecretKeyFile.create(file, new SecureRandom());
            out.println(key.publicKey().hex());
            out.println(Nip19.npub(key.publicKey()));
            return EXIT_OK;
        } catch (KeyFileException e) {
            err.println("keygen: " + file + " already exists; an author key is never replaced (choose another file,"
                    + " or delete that one if it holds no key anyone uses)");
            return EXIT_FAILED;
        } catch (java.io.UncheckedIOException e) {
            err.println("keygen: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    /**
     * SQL states of failures an operator fixes outside the sidecar (PostgreSQL error codes, appendix A): the database
     * does not exist (3D000), the server refused or could not be reached (08001, 08004, 08006), the password or role
     * was refused (28000, 28P01).
     */
    private static final Set<String> OPERATOR_SQL_STATES = Set.of("3D000", "08001", "08004", "08006", "28000", "28P01");

    /**
     * Reports a failure in one line and picks the exit code. Unexpected failures also go to the log with their stack
     * trace; expected ones (bad configuration, a newer schema, a locked data directory, a file or key file another
     * user could change or read, or one that holds no key, a database that does not
     * exist or does not answer, an HTTP port already taken) only in one line, since their message says what to do.
     */
    private int fail(String command, Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidConfigurationException invalid) {
                err.println(command + ": invalid configuration: " + invalid.getMessage());
                return EXIT_USAGE;
            }
            if (cause instanceof SchemaNewerThanBinaryException newer) {
                err.println(command + ": " + newer.getMessage());
                return EXIT_SCHEMA_NEWER;
            }
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof DataDirectoryLockedException || cause instanceof UnsafeFileException
                    || cause instanceof KeyFileException
                    || cause instanceof SQLException sql && OPERATOR_SQL_STATES.contains(sql.getSQLState())) {
                err.println(command + " failed: " + cause.getMessage());
                return EXIT_FAILED;
            }
            if (cause instanceof java.net.BindException) {
                // The listener's own message names HTTP_HOST and HTTP_PORT.
                err.println(command + " failed: " + failure.getMessage());
                return EXIT_FAILED;
            }
        }
        LOG.error("{} failed", command, failure);
        err.println(command + " failed: " + failure);
        return EXIT_FAILED;
    }
}

package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Failures an operator fixes outside the sidecar end start-up with exit code 1 and one line saying what is wrong,
 * with no stack trace on standard error or in the log; a bad logging variable stops it naming the variable.
 */
class OperatorErrorsTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @TempDir
    Path dataDir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @BeforeEach
    void listen() {
        logged.start();
        root.addAppender(logged);
    }

    @AfterEach
    void stopListening() {
        root.detachAppender(logged);
    }

    private int migrate(Map<String, String> environment) {
        return new Main(environment, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(new String[] {"migrate"});
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void serve_httpPortAlreadyTaken_failsInOneLineNamingThePortWithoutAStackTrace() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress());
             ServeProcesses processes = new ServeProcesses()) {
            Path log = dataDir.resolve("serve.log");
            Process serve = processes.start(Map.of("DATABASE_URL", db.jdbcUrl(), "BUZZ_DATA_DIR",
                    dataDir.resolve("var").toString(), "HTTP_PORT", Integer.toString(taken.getLocalPort())), log);

            assertThat(serve.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("serve gives up").isTrue();
            String output = ServeProcesses.output(log);
            assertThat(serve.exitValue()).as(output).isEqualTo(Main.EXIT_FAILED);
            assertThat(output).contains("serve failed: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + " (HTTP_HOST, HTTP_PORT)").doesNotContain("\tat ").doesNotContain("Exception in thread");
        }
    }

    @Test
    void migrate_databaseDoesNotExist_failsInOneLineWithoutAStackTrace() {
        String missing = db.jdbcUrl().replaceFirst("/[^/?]+\\?", "/buzz_no_such_database?");

        int code = migrate(Map.of("DATABASE_URL", missing, "BUZZ_DATA_DIR", dataDir.toString()));

        assertThat(code).isEqualTo(Main.EXIT_FAILED);
        assertThat(stderr()).contains("buzz_no_such_database").contains("does not exist")
                .doesNotContain("\tat ").hasLineCount(1);
        assertThat(logged.list).noneMatch(event -> event.getThrowableProxy() != null);
    }

    @Test
    void migrate_dataDirectoryLockedByAnotherSidecar_failsInOneLineWithoutAStackTrace() throws Exception {
        try (FileChannel channel = FileChannel.open(dataDir.resolve(EmbeddedDatabase.LOCK_FILE),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
            int code = migrate(Map.of("BUZZ_DATA_DIR", dataDir.toString()));

            assertThat(lock.isValid()).isTrue();
            assertThat(code).isEqualTo(Main.EXIT_FAILED);
        }
        assertThat(stderr()).contains("another process is running the embedded PostgreSQL")
                .contains("BUZZ_DATA_DIR").doesNotContain("\tat ").hasLineCount(1);
        assertThat(logged.list).noneMatch(event -> event.getThrowableProxy() != null);
        assertThat(Files.exists(dataDir.resolve("pgdata"))).isFalse();
    }

    @Test
    void migrate_dataDirectoryWritableByItsGroup_failsInOneLineNamingTheChmodWithoutAStackTrace() throws Exception {
        Files.setPosixFilePermissions(dataDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwx---"));

        int code = migrate(Map.of("BUZZ_DATA_DIR", dataDir.toString()));

        assertThat(code).isEqualTo(Main.EXIT_FAILED);
        assertThat(stderr()).startsWith("migrate failed: BUZZ_DATA_DIR ").contains("chmod go-w")
                .doesNotContain("\tat ").hasLineCount(1);
        assertThat(logged.list).noneMatch(event -> event.getThrowableProxy() != null);
        assertThat(Files.exists(dataDir.resolve("pgdata"))).isFalse();
    }

    @Test
    void migrate_invalidLogLevel_stopsNamingTheVariable() {
        int code = migrate(Map.of("BUZZ_LOG_LEVEL", "chatty", "BUZZ_DATA_DIR", dataDir.toString()));

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(stderr()).startsWith("migrate: invalid configuration: BUZZ_LOG_LEVEL must be one of")
                .contains("'chatty'");
    }
}

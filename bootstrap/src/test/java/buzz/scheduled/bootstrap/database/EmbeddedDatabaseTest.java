package buzz.scheduled.bootstrap.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded PostgreSQL under a data directory: creation, restarts, and what a killed run leaves behind. */
class EmbeddedDatabaseTest {

    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    @Test
    void start_emptyDirectoryThenRestart_keepsDataAndPortAndStopsCleanly() throws Exception {
        int port;
        long postmasterPid;
        try (EmbeddedDatabase first = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            port = first.port();
            postmasterPid = PostmasterPidFile.read(first.pgdata()).orElseThrow().pid();
            execute(first.jdbcUrl(), "CREATE TABLE kept (note text)", "INSERT INTO kept VALUES ('survives restarts')");
            assertThat(query(first.jdbcUrl(), "SELECT current_setting('server_version_num')::int / 10000"))
                    .isEqualTo(EmbeddedDatabase.MAJOR_VERSION);
            assertThat(query(first.jdbcUrl(), "SHOW fsync")).isEqualTo("on");
            assertThat(query(first.jdbcUrl(), "SHOW synchronous_commit")).isEqualTo("on");

            assertThatThrownBy(() -> EmbeddedDatabase.start(dataDir, STARTUP, STOP))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("another process is running the embedded PostgreSQL in");
        }
        assertThat(ProcessHandle.of(postmasterPid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(dataDir.resolve("pgdata").resolve(PostmasterPidFile.NAME)).doesNotExist();
        assertThat(rememberedPort()).isEqualTo(port);

        try (EmbeddedDatabase second = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            assertThat(second.port()).isEqualTo(port);
            assertThat(query(second.jdbcUrl(), "SELECT note FROM kept")).isEqualTo("survives restarts");
        }
    }

    @Test
    void start_pidFilesOfAGoneProcessAndOfAnotherProgram_areRemovedAndTheServerStarts() throws Exception {
        try (EmbeddedDatabase created = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            execute(created.jdbcUrl(), "CREATE TABLE kept (n int)", "INSERT INTO kept VALUES (7)");
        }
        Path pidFile = dataDir.resolve("pgdata").resolve(PostmasterPidFile.NAME);

        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        writePidFile(pidFile, gone.pid());
        try (EmbeddedDatabase restarted = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            assertThat(query(restarted.jdbcUrl(), "SELECT n FROM kept")).isEqualTo("7");
        }

        // A reused pid: the file names a live process that is not PostgreSQL (this JVM).
        writePidFile(pidFile, ProcessHandle.current().pid());
        try (EmbeddedDatabase restarted = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            assertThat(query(restarted.jdbcUrl(), "SELECT n FROM kept")).isEqualTo("7");
        }
    }

    @Test
    void start_interruptedInitdb_setsItAsideAndMakesAFreshCluster() throws Exception {
        Path pgdata = Files.createDirectories(dataDir.resolve("pgdata"));
        Files.writeString(pgdata.resolve("PG_VERSION"), "17\n");
        Files.writeString(pgdata.resolve("postgresql.conf"), "");

        try (EmbeddedDatabase started = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            assertThat(query(started.jdbcUrl(), "SELECT 1")).isEqualTo("1");
        }
        assertThat(dataDir.resolve("pgdata.incomplete-1").resolve("postgresql.conf")).exists();
        assertThat(pgdata.resolve(EmbeddedCluster.INITDB_COMPLETE)).exists();
    }

    @Test
    void start_clusterOfAnotherMajorVersion_refusesNamingBothVersions() throws IOException {
        Path pgdata = Files.createDirectories(dataDir.resolve("pgdata"));
        Files.writeString(pgdata.resolve("PG_VERSION"), "16\n");
        Files.writeString(pgdata.resolve(EmbeddedCluster.INITDB_COMPLETE), "");

        assertThatThrownBy(() -> EmbeddedDatabase.start(dataDir, STARTUP, STOP))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was made by PostgreSQL 16 but this build runs PostgreSQL 17");
        assertThat(pgdata.resolve("PG_VERSION")).hasContent("16");
    }

    @Test
    void choosePort_rememberedPortTaken_choosesAnotherAndRemembersIt() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Files.writeString(dataDir.resolve(EmbeddedDatabase.STATE_FILE), "port=" + taken.getLocalPort() + "\n");

            int chosen = EmbeddedPort.choosePort(dataDir.resolve(EmbeddedDatabase.STATE_FILE));

            assertThat(chosen).isNotEqualTo(taken.getLocalPort()).isPositive();
            assertThat(rememberedPort()).isEqualTo(chosen);
        }
    }

    @Test
    void choosePort_rememberedPortFree_keepsIt() throws IOException {
        int free;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            free = probe.getLocalPort();
        }
        Files.writeString(dataDir.resolve(EmbeddedDatabase.STATE_FILE), "port=" + free + "\n");

        assertThat(EmbeddedPort.choosePort(dataDir.resolve(EmbeddedDatabase.STATE_FILE))).isEqualTo(free);
    }

    @Test
    void isPostmasterOn_matchesOnlyPostgresStartedOnThatDirectory() {
        Path pgdata = Path.of("/srv/buzz/var/pgdata");

        assertThat(EmbeddedServer.isPostmasterOn("/tmp/embedded-pg/PG-1/bin/postgres",
                List.of("-D", "/srv/buzz/var/pgdata", "-p", "5432"), pgdata)).isTrue();
        assertThat(EmbeddedServer.isPostmasterOn("/usr/lib/postgresql/15/bin/postgres",
                List.of("-D", "/var/lib/postgresql/15/main"), pgdata)).isFalse();
        assertThat(EmbeddedServer.isPostmasterOn("/usr/bin/java",
                List.of("-D", "/srv/buzz/var/pgdata"), pgdata)).isFalse();
    }

    @Test
    void read_pidFileWrittenByPostgres_givesPidDirectoryAndPort() throws IOException {
        Path pgdata = Files.createDirectories(dataDir.resolve("pgdata"));
        Files.writeString(pgdata.resolve(PostmasterPidFile.NAME),
                "4242\n/srv/buzz/var/pgdata\n1796066983\n5433\n\nlocalhost\n  1234   5678\nready   \n");

        PostmasterPidFile file = PostmasterPidFile.read(pgdata).orElseThrow();

        assertThat(file.pid()).isEqualTo(4242);
        assertThat(file.dataDirectory()).isEqualTo("/srv/buzz/var/pgdata");
        assertThat(file.port()).isEqualTo(5433);
    }

    private int rememberedPort() throws IOException {
        Properties state = new Properties();
        try (var in = Files.newInputStream(dataDir.resolve(EmbeddedDatabase.STATE_FILE))) {
            state.load(in);
        }
        return Integer.parseInt(state.getProperty("port"));
    }

    private static void writePidFile(Path file, long pid) throws IOException {
        Files.writeString(file, pid + "\n" + file.getParent() + "\n1700000000\n5432\n\nlocalhost\n  0  0\nready   \n",
                StandardCharsets.US_ASCII);
    }

    private static void execute(String jdbcUrl, String... statements) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    private static String query(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

package buzz.scheduled.bootstrap.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.postgres.SchemaMigrator;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded PostgreSQL is private to the sidecar (issue 17): no superuser without a password over TCP, the
 * application as a role that is no superuser, a trust cluster of the earlier version upgraded with its data, and
 * binaries that come only from under the data directory and are refused when others could have changed them.
 */
class EmbeddedDatabasePrivacyTest {

    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(20);
    /** PostgreSQL's wire protocol: AuthenticationOk and AuthenticationSASL (SCRAM). */
    private static final int AUTH_OK = 0;
    private static final int AUTH_SASL = 10;

    @TempDir
    Path dataDir;

    @Test
    void start_superuserOverTcpWithoutOrWithAWrongPassword_isRefused_whileTheApplicationConnectsAsNoSuperuser()
            throws Exception {
        try (EmbeddedDatabase db = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            String superuser = "jdbc:postgresql://127.0.0.1:" + db.port() + "/postgres?user=postgres";

            assertThat(authenticationRequest(db.port(), "postgres")).as("the server asks the superuser for a password")
                    .isEqualTo(AUTH_SASL).isNotEqualTo(AUTH_OK);
            assertThatThrownBy(() -> DriverManager.getConnection(superuser).close())
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                            .isIn("28P01", "28000", "08004"))
                    .hasMessageContaining("password");
            assertThatThrownBy(() -> DriverManager.getConnection(superuser + "&password=guessed").close())
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("28P01"))
                    .hasMessageContaining("password authentication failed for user \"postgres\"");
            assertThatThrownBy(() -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + db.port()
                    + "/postgres?user=buzz&password=guessed").close())
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("28P01"));

            assertThat(query(db.jdbcUrl(), "SELECT current_user")).isEqualTo("buzz");
            assertThat(query(db.jdbcUrl(), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"))
                    .isEqualTo("f");
            assertThat(query(db.jdbcUrl(), "SELECT pg_get_userbyid(datdba) FROM pg_database"
                    + " WHERE datname = current_database()")).isEqualTo("buzz");
            execute(db.jdbcUrl(), "CREATE TABLE stolen (line text)");
            assertThatThrownBy(() -> execute(db.jdbcUrl(), "COPY stolen FROM PROGRAM 'id'"))
                    .as("what a superuser could do to read the sidecar's files")
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
        }
        assertThat(mode(dataDir.resolve(EmbeddedPasswords.FILE))).isEqualTo("rw-------");
        assertThat(mode(dataDir.resolve(EmbeddedBinaries.DIRECTORY))).isEqualTo("rwx------");
        assertThat(Files.readString(dataDir.resolve("pgdata/pg_hba.conf"))).isEqualTo(EmbeddedCluster.HBA_CONF)
                .doesNotContain("trust");
    }

    @Test
    void start_missingDataDirectory_isMade0700_andOneOthersMayWriteTo_isRefusedWithTheChmodToRun() throws Exception {
        Path made = dataDir.resolve("new/var");
        try (EmbeddedDatabase db = EmbeddedDatabase.start(made, STARTUP, STOP)) {
            assertThat(query(db.jdbcUrl(), "SELECT 1")).isEqualTo("1");
        }
        assertThat(mode(made)).isEqualTo("rwx------");

        Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertThatThrownBy(() -> EmbeddedDatabase.start(made, STARTUP, STOP))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("BUZZ_DATA_DIR " + made.toRealPath())
                .hasMessageContaining("chmod go-w " + made.toRealPath());

        Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(made.resolve(EmbeddedPasswords.FILE), PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> EmbeddedDatabase.start(made, STARTUP, STOP))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("chmod 600 " + made.resolve(EmbeddedPasswords.FILE));
    }

    @Test
    void start_passwordFileDeleted_setsNewPasswords_theOldOnesAreRefused_andDataIsKept() throws Exception {
        String oldUrl;
        try (EmbeddedDatabase db = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            oldUrl = db.jdbcUrl();
            execute(oldUrl, "CREATE TABLE kept (note text)", "INSERT INTO kept VALUES ('before')");
        }
        Files.delete(dataDir.resolve(EmbeddedPasswords.FILE));

        try (EmbeddedDatabase db = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            assertThat(db.jdbcUrl()).isNotEqualTo(oldUrl);
            assertThat(query(db.jdbcUrl(), "SELECT note FROM kept")).isEqualTo("before");
            assertThatThrownBy(() -> DriverManager.getConnection(oldUrl).close())
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("28P01"));
        }
        assertThat(mode(dataDir.resolve(EmbeddedPasswords.FILE))).isEqualTo("rw-------");
    }

    @Test
    void start_trustClusterOfTheEarlierVersion_isUpgradedBeforeItListens_andKeepsItsData() throws Exception {
        Path pgdata = dataDir.resolve(EmbeddedDatabase.PGDATA);
        int oldPort = freePort();
        // What the earlier version made: zonky's initdb (-A trust -U postgres), the application as the superuser.
        EmbeddedPostgres old = EmbeddedPostgres.builder()
                .setPgBinaryResolver(EmbeddedDatabasePrivacyTest::uncachedArchive)
                .setOverrideWorkingDirectory(Files.createDirectories(dataDir.resolve("old-binaries")).toFile())
                .setDataDirectory(pgdata)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false)
                .setPort(oldPort)
                .setPGStartupWait(STARTUP)
                .setServerConfig("unix_socket_directories", "''")
                .setDataDirectoryCustomizer(cluster -> write(cluster.toPath().resolve(EmbeddedCluster.INITDB_COMPLETE)))
                .start();
        String oldUrl = old.getJdbcUrl("postgres", "postgres");
        try {
            try (HikariDataSource pool = pool(oldUrl)) {
                new SchemaMigrator(pool).migrate();
            }
            execute(oldUrl, "CREATE TABLE kept (id serial PRIMARY KEY, note text)",
                    "INSERT INTO kept (note) VALUES ('made by the earlier version')",
                    "CREATE VIEW kept_notes AS SELECT note FROM kept",
                    "CREATE FUNCTION kept_count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM kept'");
            assertThat(query(oldUrl, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
                    + " AND tableowner = 'postgres'")).as("the earlier version's tables").isNotEqualTo("0");
        } finally {
            old.close();
        }
        assertThat(Files.readString(pgdata.resolve("pg_hba.conf"))).as("the earlier version's rules").contains("trust");

        try (EmbeddedDatabase db = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            assertThat(query(db.jdbcUrl(), "SELECT string_agg(note, ',') FROM kept_notes"))
                    .isEqualTo("made by the earlier version");
            execute(db.jdbcUrl(), "INSERT INTO kept (note) VALUES ('added as buzz')", "ALTER TABLE kept ADD COLUMN n int");
            assertThat(query(db.jdbcUrl(), "SELECT kept_count()")).isEqualTo("2");
            assertThat(query(db.jdbcUrl(), "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE n.nspname = 'public' AND c.relowner <> 'buzz'::regrole")).as("objects not handed over")
                    .isEqualTo("0");
            assertThat(query(db.jdbcUrl(), "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                    + " WHERE n.nspname = 'public' AND p.proowner <> 'buzz'::regrole")).isEqualTo("0");
            try (HikariDataSource pool = pool(db.jdbcUrl())) {
                assertThat(new SchemaMigrator(pool).migrate().applied()).as("migrated already, as postgres").isZero();
            }
            assertThat(query(db.jdbcUrl(), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).isEqualTo("f");
            assertThat(authenticationRequest(db.port(), "postgres")).isEqualTo(AUTH_SASL);
            assertThatThrownBy(() -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + db.port()
                    + "/postgres?user=postgres&password=").close()).isInstanceOf(SQLException.class);
        }
        assertThat(Files.readString(pgdata.resolve("pg_hba.conf"))).doesNotContain("trust");
    }

    /**
     * Fake {@code initdb}, {@code pg_ctl} and {@code postgres} planted exactly where zonky's launcher would take its
     * binaries from ({@code java.io.tmpdir/embedded-pg/PG-<md5 of the archive>}, marked unpacked) are never run;
     * zonky's own launcher, pointed at the same place, runs them (so the plant is where it would count). The
     * shared {@code java.io.tmpdir} is swapped for a private one meanwhile, so that the fakes never land in a cache
     * other builds on this machine use.
     */
    @Test
    void start_fakeBinariesInTheSharedCache_areNeverRun_andThePostmasterRunsFromUnderTheDataDirectory(
            @TempDir Path tmp) throws Exception {
        Path marker = tmp.resolve("fake-binary-ran");
        String tmpdir = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", tmp.toString());
        try {
            Path cache = tmp.resolve("embedded-pg").resolve("PG-" + md5(archive()));
            for (String program : List.of("initdb", "pg_ctl", "postgres")) {
                plant(cache.resolve("bin").resolve(program), marker);
            }
            Path ready = Files.writeString(cache.resolve(".exists"), "");
            Files.setLastModifiedTime(ready, FileTime.from(Instant.now().plusSeconds(60)));

            try (EmbeddedDatabase db = EmbeddedDatabase.start(dataDir.resolve("var"), STARTUP, STOP)) {
                assertThat(query(db.jdbcUrl(), "SELECT 1")).isEqualTo("1");
                long pid = PostmasterPidFile.read(db.pgdata()).orElseThrow().pid();
                Path executable = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "exe"));
                assertThat(executable).startsWith(dataDir.resolve("var").resolve(EmbeddedBinaries.DIRECTORY));
                assertThat(ProcessHandle.of(pid).orElseThrow().info().command().orElseThrow())
                        .startsWith(dataDir.resolve("var").toString());
            }
            assertThat(marker).as("a planted binary ran").doesNotExist();

            assertThatThrownBy(() -> EmbeddedPostgres.builder().setDataDirectory(tmp.resolve("zonky-data"))
                    .setPgBinaryResolver(EmbeddedDatabasePrivacyTest::uncachedArchive)
                    .setRegisterShutdownHook(false).start().close())
                    .as("zonky's own launcher runs what is planted there").isInstanceOf(RuntimeException.class);
            assertThat(marker).as("the plant is where zonky looks").exists();
        } finally {
            System.setProperty("java.io.tmpdir", tmpdir);
        }
    }

    @Test
    void start_binariesDirectoryOthersMayWriteTo_isRefusedBeforeAnythingRuns() throws Exception {
        Path bin;
        try (EmbeddedDatabase db = EmbeddedDatabase.start(dataDir, STARTUP, STOP)) {
            bin = Files.readSymbolicLink(Path.of("/proc", Long.toString(PostmasterPidFile.read(db.pgdata())
                    .orElseThrow().pid()), "exe")).getParent();
        }
        Path marker = dataDir.resolve("fake-binary-ran");
        for (String program : List.of("initdb", "pg_ctl", "postgres")) {
            Files.delete(bin.resolve(program));
            plant(bin.resolve(program), marker);
        }
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxrwx---"));

        assertThatThrownBy(() -> EmbeddedDatabase.start(dataDir, STARTUP, STOP))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(bin + " is writable by its group or by other users")
                .hasMessageContaining("chmod go-w " + bin);
        assertThat(marker).as("a planted binary ran").doesNotExist();

        Files.setPosixFilePermissions(dataDir.resolve(EmbeddedBinaries.DIRECTORY),
                PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> EmbeddedDatabase.start(dataDir, STARTUP, STOP))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(dataDir.resolve(EmbeddedBinaries.DIRECTORY) + " is writable by its group");
        assertThat(marker).doesNotExist();
    }

    /**
     * Sends a StartupMessage (protocol 3.0) for {@code user} and returns the code of the server's first
     * authentication request: 0 would be a connection without any password.
     */
    private static int authenticationRequest(int port, String user) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 2_000);
            socket.setSoTimeout(5_000);
            byte[] parameters = ("user\0" + user + "\0database\0postgres\0\0").getBytes(StandardCharsets.US_ASCII);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(8 + parameters.length);
            out.writeInt(196_608);
            out.write(parameters);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte type = in.readByte();
            assertThat((char) type).as("an authentication request, not an error").isEqualTo('R');
            in.readInt();
            return in.readInt();
        }
    }

    private static void plant(Path program, Path marker) throws IOException {
        Files.createDirectories(program.getParent());
        Files.writeString(program, "#!/bin/sh\necho \"$0 $*\" >> '" + marker + "'\nexit 1\n");
        Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /**
     * The archive zonky's default resolver gives, through a resolver object of its own, since zonky's launcher
     * remembers (per JVM and resolver) where it last unpacked and would skip the lookup this test is about.
     */
    private static InputStream uncachedArchive(String system, String machineHardware) throws IOException {
        return DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, machineHardware);
    }

    private static byte[] archive() throws IOException {
        try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", "x86_64")) {
            return in.readAllBytes();
        }
    }

    private static String md5(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static void write(Path file) {
        try {
            Files.writeString(file, "");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    private static HikariDataSource pool(String jdbcUrl) {
        return PostgresDataSources.create(DatabaseUrl.parse(jdbcUrl), new PoolSettings(2, Duration.ofSeconds(10),
                "buzz-privacy-test"));
    }

    private static void execute(String jdbcUrl, String... statements) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    private static String query(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl); Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

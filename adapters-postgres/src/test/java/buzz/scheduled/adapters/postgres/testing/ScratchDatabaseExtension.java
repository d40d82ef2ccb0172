package buzz.scheduled.adapters.postgres.testing;

import buzz.scheduled.adapters.postgres.SchemaMigrator;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class its own scratch PostgreSQL database, created before the class and dropped after it.
 *
 * <p>Register it on a static field: {@code @RegisterExtension static final ScratchDatabaseExtension db =
 * ScratchDatabaseExtension.migrated();}. The server is chosen once per JVM (see {@link TestPostgresServer}):
 * {@code BUZZ_TEST_DATABASE_URL} when set (a {@code jdbc:postgresql:} or {@code postgres://} URL of a server
 * where the test may {@code CREATE DATABASE}), else a Testcontainers PostgreSQL when Docker answers, else
 * embedded PostgreSQL binaries. Each class gets a database named {@code buzz_test_<random hex>}.
 */
public final class ScratchDatabaseExtension implements BeforeAllCallback, AfterAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ScratchDatabaseExtension.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final boolean migrate;
    private TestPostgresServer server;
    private String databaseName;
    private HikariDataSource dataSource;

    private ScratchDatabaseExtension(boolean migrate) {
        this.migrate = migrate;
    }

    /** A scratch database with nothing in it. */
    public static ScratchDatabaseExtension empty() {
        return new ScratchDatabaseExtension(false);
    }

    /** A scratch database with this build's Flyway migrations applied. */
    public static ScratchDatabaseExtension migrated() {
        return new ScratchDatabaseExtension(true);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (dataSource != null) {
            throw new IllegalStateException("ScratchDatabaseExtension is already active for another class; register it"
                    + " on a static field of a top-level test class (not on @Nested classes)");
        }
        server = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(TestPostgresServer.class, key -> TestPostgresServer.start(), TestPostgresServer.class);
        databaseName = "buzz_test_" + HexFormat.of().formatHex(randomBytes(8));
        server.createDatabase(databaseName);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.jdbcUrl(databaseName));
        config.setMaximumPoolSize(12);
        config.setMinimumIdle(0);
        config.setPoolName("scratch-" + databaseName);
        config.setConnectionTimeout(10_000);
        dataSource = new HikariDataSource(config);
        if (migrate) {
            new SchemaMigrator(dataSource).migrate();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (dataSource != null) {
                dataSource.close();
            }
        } finally {
            dataSource = null;
            if (databaseName != null) {
                server.dropDatabase(databaseName);
                databaseName = null;
            }
        }
    }

    /** A pool of up to 12 connections to the scratch database. */
    public DataSource dataSource() {
        requireActive();
        return dataSource;
    }

    /** Name of the scratch database ({@code buzz_test_<16 hex>}). */
    public String databaseName() {
        requireActive();
        return databaseName;
    }

    /** A self-contained {@code jdbc:postgresql:} URL of the scratch database (credentials in the query). */
    public String jdbcUrl() {
        requireActive();
        return server.jdbcUrl(databaseName);
    }

    /** The scratch database as a libpq-style {@code postgres://user:pass@host:port/db} URL. */
    public String postgresUrl() {
        requireActive();
        return server.postgresUrl(databaseName);
    }

    /** Host of the server holding the scratch database. */
    public String host() {
        requireActive();
        return server.host();
    }

    /** Port of the server holding the scratch database. */
    public int port() {
        requireActive();
        return server.port();
    }

    /** User the tests connect as. */
    public String user() {
        requireActive();
        return server.user();
    }

    /** That user's password, when the server needs one. */
    public Optional<String> password() {
        requireActive();
        return server.password();
    }

    /** Which kind of server this JVM uses ({@code BUZZ_TEST_DATABASE_URL}, Testcontainers, embedded). */
    public String serverSource() {
        requireActive();
        return server.source();
    }

    /**
     * Runs {@code sql} over a connection of its own to the server's {@code postgres} database, not the scratch one:
     * for statements about the scratch database and its sessions ({@code ALTER DATABASE ... SET},
     * {@code pg_terminate_backend}) that must not run in one of its sessions, which they may end or make read-only.
     *
     * @return the number of rows the statement returned or changed
     * @throws IllegalStateException naming the statement and PostgreSQL's message when it fails
     */
    public int executeOnServer(String sql) {
        requireActive();
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty("user", server.user());
        server.password().ifPresent(password -> properties.setProperty("password", password));
        try (Connection connection = java.sql.DriverManager.getConnection("jdbc:postgresql://" + server.host() + ":"
                + server.port() + "/postgres", properties);
             java.sql.Statement statement = connection.createStatement()) {
            if (statement.execute(sql)) {
                int rows = 0;
                try (ResultSet result = statement.getResultSet()) {
                    while (result.next()) {
                        rows++;
                    }
                }
                return rows;
            }
            return Math.max(0, statement.getUpdateCount());
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * Ends every session of the scratch database whose {@code application_name} starts with
     * {@code applicationPrefix} (from the server's {@code postgres} database, see {@link #executeOnServer}).
     *
     * @return how many were ended
     */
    public int terminateSessions(String applicationPrefix) {
        return executeOnServer("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                + databaseName() + "' AND application_name LIKE '" + applicationPrefix.replace("'", "''") + "%'");
    }

    /**
     * Empties every table of the public schema except Flyway's history, so each test starts from a blank
     * schema; sequences keep counting (fencing tokens only grow).
     */
    public void truncateAllTables() {
        List<String> tables = queryColumn("SELECT quote_ident(tablename) FROM pg_tables"
                + " WHERE schemaname = 'public' AND tablename <> 'flyway_schema_history'");
        if (!tables.isEmpty()) {
            execute("TRUNCATE " + String.join(", ", tables) + " CASCADE");
        }
    }

    /**
     * Makes {@code duration} pass for every stored message: {@code now()} cannot be moved, so every stored time of
     * {@code scheduled_message} moves back instead, which relative to {@code now()} is the same.
     */
    public void letTimePass(Duration duration) {
        long micros = duration.toNanos() / 1_000;
        execute("UPDATE scheduled_message SET due_at = due_at - ? * interval '1 microsecond',"
                + " retry_at = retry_at - ? * interval '1 microsecond',"
                + " lease_until = lease_until - ? * interval '1 microsecond',"
                + " finished_at = finished_at - ? * interval '1 microsecond',"
                + " created_at = created_at - ? * interval '1 microsecond',"
                + " updated_at = updated_at - ? * interval '1 microsecond'",
                micros, micros, micros, micros, micros, micros);
    }

    /**
     * Runs one SQL statement on the scratch database with positional {@code ?} parameters.
     *
     * @return the update count (0 for statements that change no rows)
     * @throws IllegalStateException naming the statement and PostgreSQL's message when it fails
     */
    public int execute(String sql, Object... parameters) {
        requireActive();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, parameters);
            statement.execute();
            return Math.max(0, statement.getUpdateCount());
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * The first column of every row a query returns, as text (SQL NULL as {@code null}).
     *
     * @throws IllegalStateException naming the query and PostgreSQL's message when it fails
     */
    public List<String> queryColumn(String sql, Object... parameters) {
        requireActive();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, parameters);
            List<String> values = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getString(1));
                }
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** A query's single integer answer, e.g. a {@code count(*)}. */
    public long queryLong(String sql, Object... parameters) {
        List<String> values = queryColumn(sql, parameters);
        if (values.size() != 1 || values.get(0) == null) {
            throw new IllegalStateException(sql + ": expected one non-null value, got " + values);
        }
        return Long.parseLong(values.get(0));
    }

    private static void bind(PreparedStatement statement, Object[] parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
    }

    private void requireActive() {
        if (dataSource == null) {
            throw new IllegalStateException("the scratch database exists only between beforeAll and afterAll;"
                    + " register ScratchDatabaseExtension with @RegisterExtension on a static field");
        }
    }

    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}

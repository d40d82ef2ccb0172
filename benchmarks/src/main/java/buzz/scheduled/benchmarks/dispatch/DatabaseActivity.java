package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;

/**
 * What a scratch database's sessions did over its whole life, from PostgreSQL's cumulative statistics
 * ({@code pg_stat_database}), read after every session to it has ended: a backend flushes its statistics when it
 * exits, so by then the figures are complete. Set-up (inserting the due work, creating tables) is included.
 *
 * @param transactions committed and rolled-back transactions; in autocommit every statement is one
 * @param rowsReturned rows returned by queries ({@code tup_returned}: rows read by sequential and index scans)
 * @param rowsWritten  rows inserted, updated and deleted
 */
record DatabaseActivity(long transactions, long rowsReturned, long rowsWritten) {

    private static final Duration SESSIONS_END_WITHIN = Duration.ofSeconds(10);

    DatabaseActivity {
        if (transactions < 0 || rowsReturned < 0 || rowsWritten < 0) {
            throw new IllegalArgumentException("statistics must not be negative: " + transactions + ", "
                    + rowsReturned + ", " + rowsWritten);
        }
    }

    /**
     * Waits until no session is connected to {@code database} (at most 10 s), then reads its statistics.
     *
     * @param admin    a connection to another database of the same server
     * @param database the scratch database's name
     * @throws IllegalStateException when the server refuses the queries
     */
    static DatabaseActivity after(DatabaseUrl admin, String database) {
        Properties properties = new Properties();
        admin.user().ifPresent(user -> properties.setProperty("user", user));
        admin.password().ifPresent(password -> properties.setProperty("password", password));
        try (Connection connection = DriverManager.getConnection(admin.jdbcUrl(), properties);
             PreparedStatement sessions = connection.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE datname = ?");
             PreparedStatement statistics = connection.prepareStatement("SELECT xact_commit + xact_rollback,"
                     + " tup_returned, tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = ?")) {
            sessions.setString(1, database);
            statistics.setString(1, database);
            long deadline = System.nanoTime() + SESSIONS_END_WITHIN.toNanos();
            while (count(sessions) > 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(20_000_000);
            }
            try (ResultSet rows = statistics.executeQuery()) {
                if (!rows.next()) {
                    throw new IllegalStateException("pg_stat_database has no row for " + database);
                }
                return new DatabaseActivity(rows.getLong(1), rows.getLong(2), rows.getLong(3));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the statistics of " + database + " failed: " + e.getMessage(), e);
        }
    }

    private static long count(PreparedStatement query) throws SQLException {
        try (ResultSet rows = query.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }
}

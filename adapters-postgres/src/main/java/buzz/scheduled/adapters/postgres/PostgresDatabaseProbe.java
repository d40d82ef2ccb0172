package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.DatabaseProbe;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Properties;

/**
 * The {@link DatabaseProbe} on PostgreSQL: {@code SELECT clock_timestamp()} over a connection of its own, outside
 * the pool, so a read never queues behind busy pool connections and an outage is seen within the connect timeout
 * rather than the pool's. The connection is opened on the first read and again after any failure. Give it the same
 * URL as the pool (through PgBouncer, if the pool goes through it), since it stands for the pool's path.
 *
 * <p>Not thread-safe: one periodic checker calls it.
 */
public final class PostgresDatabaseProbe implements DatabaseProbe, AutoCloseable {
    /** What the probe's session is called in {@code pg_stat_activity}. */
    public static final String APPLICATION_NAME = "buzz-database-probe";

    private final PostgresDueWorkSignal.Connector connector;
    private final int queryTimeoutSeconds;
    private volatile Connection connection;

    /**
     * @param connector opens the probe's connection
     * @param timeout   longest a read may take (whole seconds, at least 1): the statement's query timeout
     */
    public PostgresDatabaseProbe(PostgresDueWorkSignal.Connector connector, Duration timeout) {
        if (connector == null || timeout == null || timeout.toSeconds() < 1) {
            throw new IllegalArgumentException("a database probe needs a connector and a timeout of at least 1 s");
        }
        this.connector = connector;
        this.queryTimeoutSeconds = (int) Math.min(Integer.MAX_VALUE, timeout.toSeconds());
    }

    /**
     * A probe of the database at {@code url} whose connect, login and socket reads are each bounded by
     * {@code timeout} (whole seconds, at least 1).
     */
    public static PostgresDatabaseProbe of(DatabaseUrl url, Duration timeout) {
        if (timeout == null || timeout.toSeconds() < 1) {
            throw new IllegalArgumentException("a database probe needs a timeout of at least 1 s, got " + timeout);
        }
        String seconds = Long.toString(timeout.toSeconds());
        Properties properties = new Properties();
        properties.setProperty("connectTimeout", seconds);
        properties.setProperty("loginTimeout", seconds);
        // A socket that stops answering (a cut network path) fails the read instead of hanging it.
        properties.setProperty("socketTimeout", Long.toString(timeout.toSeconds() + 1));
        properties.setProperty("tcpKeepAlive", "true");
        return new PostgresDatabaseProbe(PostgresDueWorkSignal.dedicated(url, APPLICATION_NAME, properties), timeout);
    }

    @Override
    public Reading read() {
        try {
            if (connection == null || connection.isClosed()) {
                connection = connector.open();
                connection.setAutoCommit(true);
            }
            try (Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(queryTimeoutSeconds);
                try (ResultSet rs = statement.executeQuery("SELECT clock_timestamp()")) {
                    if (!rs.next()) {
                        throw new SQLException("SELECT clock_timestamp() returned no row");
                    }
                    return new Reading.Answered(rs.getObject(1, OffsetDateTime.class).toInstant());
                }
            }
        } catch (SQLException | RuntimeException e) {
            close();
            String reason = e.getMessage();
            return new Reading.Failed(reason == null || reason.isBlank() ? e.getClass().getSimpleName() : reason);
        }
    }

    /** Closes the probe's connection (a later read opens a new one). */
    @Override
    public void close() {
        Connection open = connection;
        connection = null;
        if (open != null) {
            try {
                open.close();
            } catch (SQLException | RuntimeException e) {
                // Already broken; nothing to release.
            }
        }
    }
}

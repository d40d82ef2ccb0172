package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.DatabaseProbe;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Properties;

/**
 * The {@link DatabaseProbe} on PostgreSQL: one statement reading {@code clock_timestamp()} and whether the database
 * takes writes ({@code pg_is_in_recovery()}: a hot standby; {@code transaction_read_only} and
 * {@code default_transaction_read_only}: a read-only default, which PostgreSQL applies at the next command after a
 * configuration reload), over a connection of its own, outside the pool, so a read never queues behind busy pool
 * connections and an outage is seen within the connect timeout rather than the pool's. The connection is opened on the
 * first read and again after any failure, after a read-only answer (a session keeps the read-only default it started
 * with, so only a new one shows the database taking writes again) and after {@link #renewSession()}. A read whose
 * open session turns out ended (terminated, timed out, its connection broken) is tried once more at once on a new
 * one: a session killed while the server stays up is no outage (docs/failure-scenarios.md F28). Give it the same URL
 * as the pool (through PgBouncer, if the pool goes through it), since it stands for the pool's path; a session of
 * its own turns the server's {@code idle_session_timeout} off for itself (F30).
 *
 * <p>Not thread-safe, except {@link #renewSession()}: one periodic checker calls it.
 */
public final class PostgresDatabaseProbe implements DatabaseProbe, AutoCloseable {
    /** What the probe's session is called in {@code pg_stat_activity}. */
    public static final String APPLICATION_NAME = "buzz-database-probe";

    private final PostgresDueWorkSignal.Connector connector;
    /** The read: the database's clock, then whether it refuses writes and why. */
    static final String READ = """
            SELECT clock_timestamp(),
                   CASE WHEN pg_is_in_recovery() THEN 'it is a hot standby (pg_is_in_recovery())'
                        WHEN current_setting('default_transaction_read_only')::boolean
                          OR current_setting('transaction_read_only')::boolean
                        THEN 'default_transaction_read_only is on'
                   END""";

    private final int queryTimeoutSeconds;
    private final boolean sessionOfItsOwn;
    private volatile Connection connection;
    private volatile boolean renew;

    /**
     * @param connector       opens the probe's connection
     * @param timeout         longest a read may take (whole seconds, at least 1): the statement's query timeout
     * @param sessionOfItsOwn whether the connection is a PostgreSQL session of its own (no transaction pooler
     *                        between): it then turns the server's {@code idle_session_timeout} off for itself
     */
    public PostgresDatabaseProbe(PostgresDueWorkSignal.Connector connector, Duration timeout,
                                 boolean sessionOfItsOwn) {
        if (connector == null || timeout == null || timeout.toSeconds() < 1) {
            throw new IllegalArgumentException("a database probe needs a connector and a timeout of at least 1 s");
        }
        this.connector = connector;
        this.queryTimeoutSeconds = (int) Math.min(Integer.MAX_VALUE, timeout.toSeconds());
        this.sessionOfItsOwn = sessionOfItsOwn;
    }

    /**
     * A probe of the database at {@code url} whose connect, login and socket reads are each bounded by
     * {@code timeout} (whole seconds, at least 1); see
     * {@link #PostgresDatabaseProbe(PostgresDueWorkSignal.Connector, Duration, boolean)} for {@code sessionOfItsOwn}.
     */
    public static PostgresDatabaseProbe of(DatabaseUrl url, Duration timeout, boolean sessionOfItsOwn) {
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
        return new PostgresDatabaseProbe(PostgresDueWorkSignal.dedicated(url, APPLICATION_NAME, properties), timeout,
                sessionOfItsOwn);
    }

    /** A probe of a session of its own at {@code url}; see {@link #of(DatabaseUrl, Duration, boolean)}. */
    public static PostgresDatabaseProbe of(DatabaseUrl url, Duration timeout) {
        return of(url, timeout, true);
    }

    @Override
    public Reading read() {
        if (renew) {
            renew = false;
            close();
        }
        boolean wasOpen = connection != null;
        try {
            return readOnce();
        } catch (SQLException | RuntimeException e) {
            close();
            if (wasOpen && SessionFaults.faultOf(e).filter(fault -> fault == SessionFaults.Fault.ENDED).isPresent()) {
                try {
                    return readOnce();
                } catch (SQLException | RuntimeException again) {
                    close();
                    return failed(again);
                }
            }
            return failed(e);
        }
    }

    @Override
    public void renewSession() {
        renew = true;
    }

    private Reading readOnce() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = connector.open();
            connection.setAutoCommit(true);
            if (sessionOfItsOwn) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(PostgresDataSources.IDLE_SESSION_TIMEOUT_OFF);
                }
            }
        }
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(queryTimeoutSeconds);
            try (ResultSet rs = statement.executeQuery(READ)) {
                if (!rs.next()) {
                    throw new SQLException("the probe's SELECT returned no row");
                }
                Instant databaseNow = rs.getObject(1, OffsetDateTime.class).toInstant();
                String readOnly = rs.getString(2);
                if (readOnly == null) {
                    return new Reading.Answered(databaseNow);
                }
                renew = true;
                return new Reading.ReadOnly(databaseNow, readOnly);
            }
        }
    }

    private static Reading failed(Exception e) {
        String reason = e.getMessage();
        return new Reading.Failed(reason == null || reason.isBlank() ? e.getClass().getSimpleName() : reason);
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

package buzz.scheduled.adapters.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Properties;

/**
 * Tells at start-up whether a URL leads to PostgreSQL sessions of its own or through a transaction-mode pooler
 * (PgBouncer's {@code pool_mode = transaction} or {@code statement}), which hands each transaction to whichever server
 * session is free, so nothing that needs one session across transactions works there: Flyway's session lock and
 * schema reads ({@code currentSchema is null}), named prepared statements ({@code prepared statement "S_4" already
 * exists}), {@code LISTEN} (docs/failure-scenarios.md F29).
 *
 * <p>The test: two client connections ask in turn for their server process ({@code pg_backend_pid()}), each in a
 * transaction of its own. Two connections open at the same time never share a process unless something between them
 * and PostgreSQL shares one; a transaction-mode pooler gives the second the session the first has just given back
 * (PgBouncer reuses the most recently released one), so the pids match. A direct connection or a session-mode pooler
 * gives each its own. Three rounds, in case a pooler picks idle sessions in another order.
 */
public final class SharedSessionCheck {
    /** What the check's sessions are called in {@code pg_stat_activity}. */
    public static final String APPLICATION_NAME = "buzz-session-check";
    private static final int ROUNDS = 3;

    private SharedSessionCheck() {
    }

    /**
     * Why {@code url} cannot hold a session (the pid two client connections shared), or empty when each connection
     * keeps its own session, or when the check cannot tell (the database does not answer: what connects next reports
     * that).
     */
    public static Optional<String> sharedSession(DatabaseUrl url) {
        Properties properties = new Properties();
        properties.setProperty("connectTimeout", "10");
        properties.setProperty("socketTimeout", "20");
        PostgresDueWorkSignal.Connector connector = PostgresDueWorkSignal.dedicated(url, APPLICATION_NAME, properties);
        try (Connection first = connector.open(); Connection second = connector.open()) {
            for (int round = 0; round < ROUNDS; round++) {
                int firstPid = backendPid(first);
                int secondPid = backendPid(second);
                if (firstPid == secondPid) {
                    return Optional.of("two client connections were served by one PostgreSQL session, backend pid "
                            + firstPid);
                }
            }
            return Optional.empty();
        } catch (SQLException e) {
            return Optional.empty();
        }
    }

    private static int backendPid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
            row.next();
            return row.getInt(1);
        }
    }
}

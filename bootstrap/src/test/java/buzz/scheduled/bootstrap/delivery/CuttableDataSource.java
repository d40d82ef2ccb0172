package buzz.scheduled.bootstrap.delivery;

import buzz.scheduled.adapters.postgres.testing.ForwardingDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * A pool wrapper that can hand out one connection whose server process was just terminated
 * ({@code pg_terminate_backend}), so the next statement on it fails the way a dropped database connection does.
 */
final class CuttableDataSource extends ForwardingDataSource {
    private final AtomicReference<Thread> dropNextFor = new AtomicReference<>();

    CuttableDataSource(DataSource pool) {
        super(pool);
    }

    /**
     * The next connection handed out to the calling thread is dead; other threads (a test polling the store,
     * the lease renewer) keep getting live ones.
     */
    void dropNextConnectionOfThisThread() {
        dropNextFor.set(Thread.currentThread());
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = pool.getConnection();
        if (dropNextFor.compareAndSet(Thread.currentThread(), null)) {
            int pid;
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            try (Connection killer = pool.getConnection(); Statement statement = killer.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT pg_terminate_backend(" + pid + ", 5000)")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    throw new IllegalStateException("could not terminate backend " + pid);
                }
            }
        }
        return connection;
    }
}

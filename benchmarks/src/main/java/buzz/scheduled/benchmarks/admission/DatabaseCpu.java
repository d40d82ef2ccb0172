package buzz.scheduled.benchmarks.admission;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * CPU time of the PostgreSQL backends serving one database, read from {@code /proc} (the database runs on this
 * host: the benchmarks only talk to 127.0.0.1). Shared by the admission and the dispatch benchmarks.
 */
public final class DatabaseCpu {

    private DatabaseCpu() {
    }

    /**
     * CPU time used so far by the backends connected to {@code database}'s current database (user + system, from
     * {@code /proc/<pid>/stat} in 10 ms ticks), nanoseconds; 0 when {@code /proc} cannot be read (another operating
     * system). Backends that already ended and shared server processes (WAL writer, checkpointer) are not included.
     *
     * @throws IllegalStateException when the backends cannot be listed
     */
    public static long backendNanos(DataSource database) {
        List<Long> pids = new ArrayList<>();
        try (Connection connection = database.getConnection();
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT pid FROM pg_stat_activity WHERE datname = current_database()")) {
            while (rows.next()) {
                pids.add(rows.getLong(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not list the database's backends: " + e.getMessage(), e);
        }
        long ticks = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the line.
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            } catch (IOException | RuntimeException e) {
                // A backend that ended between the query and the read, or no /proc: its time is not counted.
            }
        }
        return ticks * 10_000_000L;
    }
}

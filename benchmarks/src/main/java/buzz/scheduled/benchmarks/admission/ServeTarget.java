package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.benchmarks.dispatch.LoopbackRelay;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A real {@code serve} process on its embedded PostgreSQL under a fresh data directory, publishing to a
 * {@link LoopbackRelay} in this JVM (nothing becomes due during the run: every event is due an hour or more ahead).
 * The figures come from outside the sidecar: its JVM's CPU time and the PostgreSQL server's (postmaster and every
 * child: backends, WAL writer, checkpointer) from {@code /proc}, and statement counts from
 * {@code pg_stat_statements} (which the embedded server preloads), read over a superuser connection with the
 * password the sidecar keeps in its data directory.
 */
final class ServeTarget implements AdmissionTarget {
    private static final String APPLICATION_ROLE = "buzz";
    private static final WallClock CLOCK = Instant::now;

    private final Optional<LoopbackRelay> relay;
    private final Optional<ServeProcess> serve;
    private final URI baseUrl;
    private final OptionalLong jvmPid;
    private final OptionalLong postmasterPid;
    private final Optional<Connection> statistics;
    /** Whether the server preloads {@code pg_stat_statements} (a {@code serve} before it did cannot count). */
    private final boolean counting;

    private ServeTarget(Optional<LoopbackRelay> relay, Optional<ServeProcess> serve, URI baseUrl, OptionalLong jvmPid,
                        Optional<Path> dataDirectory) {
        this.relay = relay;
        this.serve = serve;
        this.baseUrl = baseUrl;
        this.jvmPid = jvmPid;
        if (dataDirectory.isPresent()) {
            Path data = dataDirectory.get();
            this.postmasterPid = OptionalLong.of(ServeProcess.postmasterPid(data));
            try {
                Connection connection = DriverManager.getConnection(ServeProcess.superuserJdbcUrl(data));
                this.statistics = Optional.of(connection);
                this.counting = text("SHOW shared_preload_libraries").contains("pg_stat_statements");
                if (counting) {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("could not connect to the embedded database under " + data
                        + " for its statistics: " + e.getMessage(), e);
            }
        } else {
            this.postmasterPid = OptionalLong.empty();
            this.statistics = Optional.empty();
            this.counting = false;
        }
    }

    /**
     * A {@code serve} someone else started at {@code baseUrl} (whose {@code PUBLIC_BASE_URL} must be that URL, and
     * whose limits must let the load through). CPU figures need its JVM's pid; database CPU, statements and the
     * row check need its embedded database's data directory ({@code BUZZ_DATA_DIR}) on this host.
     */
    static ServeTarget attach(URI baseUrl, OptionalLong jvmPid, Optional<Path> dataDirectory) {
        return new ServeTarget(Optional.empty(), Optional.empty(), baseUrl, jvmPid, dataDirectory);
    }

    /**
     * Starts the relay and {@code serve} with limits the load cannot trip ({@link AdmissionStack#UNLIMITED} pending
     * per owner and per channel window, 100 000 writes a minute per owner), waits until it is ready and connects to
     * its database for statistics.
     *
     * @param jar        the operator's jar, or empty for this class path
     * @param jvmOptions options for the serve JVM (e.g. {@code -XX:StartFlightRecording=...})
     */
    static ServeTarget start(Optional<Path> jar, List<String> jvmOptions) {
        LoopbackRelay relay = LoopbackRelay.start(CLOCK);
        ServeProcess serve = null;
        try {
            String unlimited = Integer.toString(AdmissionStack.UNLIMITED);
            serve = ServeProcess.start(jar, Map.of(
                    SidecarConfig.RELAY_URL, relay.url().toString(),
                    SidecarConfig.BUZZ_MAX_PENDING_PER_OWNER, unlimited,
                    SidecarConfig.BUZZ_CHANNEL_WINDOW_PER_OWNER, unlimited,
                    SidecarConfig.BUZZ_CHANNEL_WINDOW_TOTAL, unlimited,
                    SidecarConfig.BUZZ_OWNER_WRITES_PER_MINUTE, "100000",
                    SidecarConfig.BUZZ_OWNER_WRITE_BURST, "100000"), jvmOptions);
            return new ServeTarget(Optional.of(relay), Optional.of(serve), serve.baseUrl(),
                    OptionalLong.of(serve.pid()), serve.dataDirectory());
        } catch (RuntimeException e) {
            if (serve != null) {
                serve.close();
            }
            relay.close();
            throw new IllegalStateException("could not start serve for the benchmark: " + e.getMessage(), e);
        }
    }

    @Override
    public URI baseUrl() {
        return baseUrl;
    }

    @Override
    public String describe() {
        String database = statistics.isEmpty() ? "its database not observed"
                : String.format(Locale.ROOT, "its embedded PostgreSQL %s (postmaster %d), schema V%s",
                text("SHOW server_version"), postmasterPid.getAsLong(),
                text("SELECT version FROM flyway_schema_history WHERE success ORDER BY installed_rank DESC LIMIT 1"));
        return String.format(Locale.ROOT, "serve (%s) at %s on %s%s",
                jvmPid.isPresent() ? "pid " + jvmPid.getAsLong() : "pid unknown", baseUrl, database,
                relay.map(r -> ", relay " + r.url()).orElse(""));
    }

    @Override
    public long serverCpuNanos() {
        return jvmPid.isPresent() ? ProcessCpu.nanos(jvmPid.getAsLong(), false) : 0;
    }

    @Override
    public long databaseCpuNanos() {
        return postmasterPid.isPresent() ? ProcessCpu.serverTreeNanos(postmasterPid.getAsLong()) : 0;
    }

    @Override
    public OptionalLong statements() {
        return !counting ? OptionalLong.empty() : OptionalLong.of(number(
                "SELECT coalesce(sum(s.calls), 0) FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid"
                        + " WHERE r.rolname = '" + APPLICATION_ROLE + "'"));
    }

    @Override
    public long storedMessages() {
        return statistics.isEmpty() ? -1 : number("SELECT count(*) FROM scheduled_message");
    }

    @Override
    public List<String> statementProfile(long creates) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "%9s %11s %9s  %s", "calls/cr", "exec ms/cr", "mean ms", "statement"));
        String sql = "SELECT s.calls, s.total_exec_time, s.query FROM pg_stat_statements s"
                + " JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = '" + APPLICATION_ROLE + "'"
                + " ORDER BY s.total_exec_time DESC LIMIT 25";
        if (!counting) {
            return List.of();
        }
        try (Statement statement = statistics.get().createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                long calls = rows.getLong(1);
                double total = rows.getDouble(2);
                String query = rows.getString(3).replaceAll("\\s+", " ");
                lines.add(String.format(Locale.ROOT, "%9.3f %11.4f %9.4f  %s", calls / (double) creates,
                        total / creates, calls == 0 ? 0 : total / calls,
                        query.length() > 140 ? query.substring(0, 140) + "…" : query));
            }
        } catch (SQLException e) {
            lines.add("pg_stat_statements could not be read: " + e.getMessage());
        }
        return lines;
    }

    @Override
    public void resetStatementProfile() {
        if (counting) {
            text("SELECT pg_stat_statements_reset()::text");
        }
    }

    @Override
    public void close() {
        try {
            if (statistics.isPresent()) {
                statistics.get().close();
            }
        } catch (SQLException e) {
            // the server is going away anyway
        }
        try {
            serve.ifPresent(ServeProcess::close);
        } finally {
            relay.ifPresent(LoopbackRelay::close);
        }
    }

    private long number(String sql) {
        return Long.parseLong(text(sql));
    }

    private String text(String sql) {
        try (Statement statement = statistics.orElseThrow().createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + sql + ": " + e.getMessage(), e);
        }
    }
}

package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * A database {@code buzz_bench_<random>} created on a PostgreSQL at 127.0.0.1 for one run and dropped afterwards
 * (on {@link #close()}, and from a shutdown hook when the run is interrupted, e.g. by SIGTERM or Ctrl-C). What uses
 * the database is closed first ({@link #closeBeforeDrop}), so no pool reconnects while it is being dropped. Shared by
 * the admission and the dispatch benchmarks.
 */
public final class ScratchDatabase implements AutoCloseable {
    private static final String JDBC_PREFIX = "jdbc:postgresql://";
    private static final Pattern NAME = Pattern.compile("buzz_bench_[0-9a-f]{12}");

    private final DatabaseUrl admin;
    private final String name;
    private final DatabaseUrl url;
    private final AtomicBoolean dropped = new AtomicBoolean();
    private final List<AutoCloseable> users = new CopyOnWriteArrayList<>();
    private final Thread dropOnExit;

    private ScratchDatabase(DatabaseUrl admin, String name) {
        this.admin = admin;
        this.name = name;
        this.url = scratchUrl(admin, name);
        this.dropOnExit = new Thread(this::drop, "drop-" + name);
    }

    /**
     * Creates a fresh scratch database next to the one {@code adminUrl} names.
     *
     * @throws IllegalArgumentException when the URL cannot be parsed or does not point at 127.0.0.1
     * @throws IllegalStateException    when PostgreSQL refuses the connection or the {@code CREATE DATABASE}
     */
    public static ScratchDatabase create(String adminUrl) {
        DatabaseUrl admin = DatabaseUrl.parse(adminUrl);
        requireLoopback(admin);
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        ScratchDatabase database = new ScratchDatabase(admin, "buzz_bench_" + HexFormat.of().formatHex(random));
        database.execute("CREATE DATABASE " + database.name);
        Runtime.getRuntime().addShutdownHook(database.dropOnExit);
        return database;
    }

    /** The scratch database's name. */
    public String name() {
        return name;
    }

    /** Where the scratch database is, with the admin URL's host, port, credentials and parameters. */
    public DatabaseUrl url() {
        return url;
    }

    /**
     * Has {@code user} (a pool, a server over it) closed before the database is dropped, also when the drop happens
     * in the shutdown hook while the run is still going; {@code user.close()} must be idempotent.
     */
    public void closeBeforeDrop(AutoCloseable user) {
        users.add(0, user);
    }

    /** Closes its users, then drops the database (ending any connection still open to it); idempotent. */
    @Override
    public void close() {
        drop();
        try {
            Runtime.getRuntime().removeShutdownHook(dropOnExit);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or has run: nothing left to remove.
        }
    }

    private void drop() {
        if (dropped.compareAndSet(false, true)) {
            for (AutoCloseable user : users) {
                try {
                    user.close();
                } catch (Exception e) {
                    System.err.println("closing " + user + " before dropping " + name + " failed: " + e);
                }
            }
            execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    private void execute(String sql) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalStateException("refusing to run DDL on a database not named buzz_bench_<hex>: " + name);
        }
        Properties properties = new Properties();
        admin.user().ifPresent(user -> properties.setProperty("user", user));
        admin.password().ifPresent(password -> properties.setProperty("password", password));
        try (Connection connection = DriverManager.getConnection(admin.jdbcUrl(), properties);
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + admin + " refused \"" + sql + "\": " + e.getMessage(), e);
        }
    }

    /**
     * The admin URL with its database replaced by {@code database}.
     *
     * @throws IllegalArgumentException when the URL names no host ({@code jdbc:postgresql:db} form)
     */
    static DatabaseUrl scratchUrl(DatabaseUrl admin, String database) {
        String jdbc = admin.jdbcUrl();
        if (!jdbc.startsWith(JDBC_PREFIX)) {
            throw new IllegalArgumentException("the benchmark's database URL must name its host (jdbc:postgresql://"
                    + "127.0.0.1:5432/db), got " + admin);
        }
        String rest = jdbc.substring(JDBC_PREFIX.length());
        int slash = rest.indexOf('/');
        int query = rest.indexOf('?');
        String hostPort = slash < 0 ? (query < 0 ? rest : rest.substring(0, query)) : rest.substring(0, slash);
        String parameters = query < 0 ? "" : rest.substring(query);
        return new DatabaseUrl(JDBC_PREFIX + hostPort + "/" + database + parameters, admin.user(), admin.password());
    }

    /**
     * Refuses a database anywhere but 127.0.0.1: the benchmark talks to loopback only.
     *
     * @throws IllegalArgumentException naming the host found
     */
    public static void requireLoopback(DatabaseUrl url) {
        String jdbc = url.jdbcUrl();
        if (!jdbc.startsWith(JDBC_PREFIX)) {
            throw new IllegalArgumentException(AdmissionOptions.DATABASE_URL_VARIABLE
                    + " must name host 127.0.0.1 explicitly (jdbc:postgresql://127.0.0.1:5432/postgres), got " + url);
        }
        String rest = jdbc.substring(JDBC_PREFIX.length());
        int end = rest.length();
        for (char stop : new char[] {'/', '?'}) {
            int at = rest.indexOf(stop);
            if (at >= 0) {
                end = Math.min(end, at);
            }
        }
        String hostPort = rest.substring(0, end);
        String host = hostPort.contains(":") ? hostPort.substring(0, hostPort.lastIndexOf(':')) : hostPort;
        if (!host.equals("127.0.0.1")) {
            throw new IllegalArgumentException(AdmissionOptions.DATABASE_URL_VARIABLE
                    + " must point at 127.0.0.1 (the benchmark talks to loopback only), got host \"" + hostPort + "\"");
        }
    }
}

package buzz.scheduled.adapters.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Builds the HikariCP pool the PostgreSQL adapters share, from the operator's {@code DATABASE_URL}. */
public final class PostgresDataSources {

    /**
     * Turns {@code idle_session_timeout} off for the session that runs it, where the setting exists (PostgreSQL 14+;
     * elsewhere the statement does nothing): the sidecar's own sessions are idle by design between uses (a pool's
     * spare connections, the listener waiting for notifications), and a server that ends idle sessions would otherwise
     * end them every few seconds (docs/failure-scenarios.md F30).
     */
    static final String IDLE_SESSION_TIMEOUT_OFF = "SELECT set_config(name, '0', false) FROM pg_settings"
            + " WHERE name = 'idle_session_timeout'";

    private PostgresDataSources() {
    }

    /**
     * Opens a pool for {@code databaseUrl} (see {@link DatabaseUrl#parse(String)} for the accepted forms).
     * The pool connects eagerly, so an unreachable server or wrong password fails here, not on first use.
     *
     * @throws IllegalArgumentException when the URL cannot be parsed (the message never contains the password)
     * @throws com.zaxxer.hikari.pool.HikariPool.PoolInitializationException when the first connection fails
     */
    public static HikariDataSource create(String databaseUrl, PoolSettings settings) {
        return create(DatabaseUrl.parse(databaseUrl), settings);
    }

    /** Opens a pool for an already parsed URL; see {@link #create(String, PoolSettings)}. */
    public static HikariDataSource create(DatabaseUrl url, PoolSettings settings) {
        return create(url, settings, new SessionFaults());
    }

    /**
     * Opens a pool for an already parsed URL whose ended and read-only sessions {@code faults} handles (evicting every
     * session of the pool; see {@link SessionFaults}); see {@link #create(String, PoolSettings)}.
     */
    public static HikariDataSource create(DatabaseUrl url, PoolSettings settings, SessionFaults faults) {
        return create(url, settings, faults, false);
    }

    /**
     * As {@link #create(DatabaseUrl, PoolSettings, SessionFaults)}; with {@code sessionsOfTheirOwn} (no
     * transaction-mode pooler between the pool and PostgreSQL) each new connection also turns the server's
     * {@code idle_session_timeout} off for its session ({@link #IDLE_SESSION_TIMEOUT_OFF}), so spare connections are
     * not ended under the pool and replaced every few seconds. Through a transaction pooler the setting would land on
     * whichever server session the pooler picked, so it is left alone there.
     */
    public static HikariDataSource create(DatabaseUrl url, PoolSettings settings, SessionFaults faults,
                                          boolean sessionsOfTheirOwn) {
        if (faults == null) {
            throw new IllegalArgumentException("the pool needs its session fault handling");
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url.jdbcUrl());
        url.user().ifPresent(config::setUsername);
        url.password().ifPresent(config::setPassword);
        config.setDriverClassName("org.postgresql.Driver");
        config.setMaximumPoolSize(settings.maximumPoolSize());
        config.setMinimumIdle(Math.min(2, settings.maximumPoolSize()));
        config.setConnectionTimeout(settings.connectionTimeout().toMillis());
        config.setPoolName(settings.poolName());
        config.setAutoCommit(true);
        // Visible in pg_stat_activity, so an operator can tell the sidecar's sessions apart.
        config.addDataSourceProperty("ApplicationName", "buzz-scheduled-delivery");
        config.setExceptionOverride(faults);
        if (sessionsOfTheirOwn) {
            config.setConnectionInitSql(IDLE_SESSION_TIMEOUT_OFF);
        }
        HikariDataSource pool = new HikariDataSource(config);
        faults.attach(pool);
        return pool;
    }
}

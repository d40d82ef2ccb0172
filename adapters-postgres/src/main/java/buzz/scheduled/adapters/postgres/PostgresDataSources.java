package buzz.scheduled.adapters.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Builds the HikariCP pool the PostgreSQL adapters share, from the operator's {@code DATABASE_URL}. */
public final class PostgresDataSources {

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
        return new HikariDataSource(config);
    }
}

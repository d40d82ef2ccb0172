package buzz.scheduled.bootstrap.database;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.postgres.SchemaMigrator;
import buzz.scheduled.bootstrap.config.InvalidConfigurationException;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database the sidecar runs on: a connection pool to {@code DATABASE_URL}, or, when it is unset, to an
 * {@link EmbeddedDatabase} under {@code BUZZ_DATA_DIR} that this object starts and stops. Closing closes the pool
 * first, then stops the embedded server.
 */
public final class SidecarDatabase implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SidecarDatabase.class);
    /** How long the embedded server may take to accept connections (crash recovery included). */
    static final Duration EMBEDDED_STARTUP_WAIT = Duration.ofSeconds(60);
    /** How long an orphaned embedded server may take to stop. */
    static final Duration EMBEDDED_STOP_WAIT = Duration.ofSeconds(20);

    private final HikariDataSource pool;
    private final Optional<EmbeddedDatabase> embedded;
    private final DatabaseUrl url;
    private final String description;

    private SidecarDatabase(HikariDataSource pool, Optional<EmbeddedDatabase> embedded, DatabaseUrl url,
                            String description) {
        this.pool = pool;
        this.embedded = embedded;
        this.url = url;
        this.description = description;
    }

    /**
     * Opens the pool, starting the embedded server first when {@code DATABASE_URL} is unset. The pool connects
     * eagerly, so a wrong URL or an unreachable server fails here.
     *
     * @throws InvalidConfigurationException naming {@code DATABASE_URL} when it cannot be parsed
     * @throws IOException                   when the embedded server cannot be started
     */
    public static SidecarDatabase open(SidecarConfig config) throws IOException {
        PoolSettings pool = new PoolSettings(config.database().poolSize(), Duration.ofSeconds(5), "buzz-postgres");
        Optional<String> url = config.database().url();
        if (url.isPresent()) {
            DatabaseUrl parsed;
            try {
                parsed = DatabaseUrl.parse(url.get());
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(SidecarConfig.DATABASE_URL,
                        SidecarConfig.DATABASE_URL + " is not usable: " + e.getMessage());
            }
            LOG.info("connecting to {}", parsed);
            return new SidecarDatabase(PostgresDataSources.create(parsed, pool), Optional.empty(), parsed,
                    parsed.toString());
        }
        EmbeddedDatabase embedded = EmbeddedDatabase.start(config.dataDirectory(), EMBEDDED_STARTUP_WAIT,
                EMBEDDED_STOP_WAIT);
        try {
            DatabaseUrl parsed = DatabaseUrl.parse(embedded.jdbcUrl());
            HikariDataSource dataSource = PostgresDataSources.create(parsed, pool);
            return new SidecarDatabase(dataSource, Optional.of(embedded), parsed,
                    "embedded PostgreSQL on port " + embedded.port() + " in " + embedded.pgdata());
        } catch (RuntimeException e) {
            embedded.close();
            throw e;
        }
    }

    /** The pool. */
    public DataSource dataSource() {
        return pool;
    }

    /** Where the pool connects (for components that need a dedicated connection, such as LISTEN). */
    public DatabaseUrl url() {
        return url;
    }

    /** The embedded server, when this sidecar runs one. */
    public Optional<EmbeddedDatabase> embedded() {
        return embedded;
    }

    /**
     * Applies this build's migrations after the mixed-version guard.
     *
     * @throws buzz.scheduled.adapters.postgres.SchemaNewerThanBinaryException when a newer build migrated the database
     */
    public SchemaMigrator.MigrationReport migrate() {
        SchemaMigrator.MigrationReport report = new SchemaMigrator(pool).migrate();
        LOG.info("database schema at version {} ({} migration(s) applied now) on {}", report.schemaVersion(),
                report.applied(), description);
        return report;
    }

    /** Where the database is, without credentials. */
    public String description() {
        return description;
    }

    @Override
    public void close() {
        try {
            pool.close();
        } finally {
            embedded.ifPresent(EmbeddedDatabase::close);
        }
    }
}

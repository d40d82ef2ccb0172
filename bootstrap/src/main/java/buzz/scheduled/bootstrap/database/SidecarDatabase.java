package buzz.scheduled.bootstrap.database;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.postgres.SchemaMigrator;
import buzz.scheduled.adapters.postgres.SessionFaults;
import buzz.scheduled.adapters.postgres.SharedSessionCheck;
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
 * {@link EmbeddedDatabase} under {@code BUZZ_DATA_DIR} that this object starts and stops (the pool, {@code LISTEN}
 * and migrations then connect as its application role, which is not a superuser, with the password from its 0600
 * file). With
 * {@code BUZZ_DIRECT_DATABASE_URL} (the way round a transaction-mode pooler such as PgBouncer), migrations and
 * {@code LISTEN} use that URL and the pool's connections make no named server-side prepared statements (see
 * {@link DatabaseUrls}); a direct URL that leads through a transaction-mode pooler anyway is refused at start
 * ({@link SharedSessionCheck}). The pool evicts all its sessions when one of them was ended or refused writes
 * ({@link SessionFaults}). Closing closes the pool first, then stops the embedded server.
 */
public final class SidecarDatabase implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SidecarDatabase.class);
    /** How long the embedded server may take to accept connections (crash recovery included). */
    static final Duration EMBEDDED_STARTUP_WAIT = Duration.ofSeconds(60);
    /** How long an orphaned embedded server may take to stop. */
    static final Duration EMBEDDED_STOP_WAIT = Duration.ofSeconds(20);

    /** Connections the migration pool on a separate direct URL may open (Flyway uses two: the lock and the work). */
    private static final int MIGRATION_CONNECTIONS = 3;

    private final HikariDataSource pool;
    private final SessionFaults faults;
    private final Optional<EmbeddedDatabase> embedded;
    private final DatabaseUrls urls;
    private final String description;

    private SidecarDatabase(HikariDataSource pool, SessionFaults faults, Optional<EmbeddedDatabase> embedded,
                            DatabaseUrls urls, String description) {
        this.pool = pool;
        this.faults = faults;
        this.embedded = embedded;
        this.urls = urls;
        this.description = description;
    }

    /**
     * Opens the pool, starting the embedded server first when {@code DATABASE_URL} is unset. The pool connects
     * eagerly, so a wrong URL or an unreachable server fails here.
     *
     * @throws InvalidConfigurationException naming {@code DATABASE_URL} or {@code BUZZ_DIRECT_DATABASE_URL} when
     *                                       it cannot be parsed
     * @throws IOException                   when the embedded server cannot be started
     */
    public static SidecarDatabase open(SidecarConfig config) throws IOException {
        PoolSettings pool = new PoolSettings(config.database().poolSize(), Duration.ofSeconds(5), "buzz-postgres");
        SessionFaults faults = new SessionFaults();
        Optional<String> url = config.database().url();
        if (url.isPresent()) {
            DatabaseUrl pooled = parse(SidecarConfig.DATABASE_URL, url.get());
            DatabaseUrls urls = config.database().directUrl()
                    .map(direct -> DatabaseUrls.pooledAndDirect(pooled,
                            parse(SidecarConfig.BUZZ_DIRECT_DATABASE_URL, direct)))
                    .orElse(DatabaseUrls.same(pooled));
            if (urls.separateDirect()) {
                LOG.info("connecting the pool to {}; LISTEN and migrations to {}", urls.pooled(), urls.direct());
            } else {
                LOG.info("connecting to {}", pooled);
            }
            // Without a separate direct URL the pool's URL is direct too (requireSessions checks it).
            HikariDataSource dataSource = PostgresDataSources.create(urls.pooled(), pool, faults,
                    !urls.separateDirect());
            try {
                requireSessions(urls);
            } catch (RuntimeException e) {
                dataSource.close();
                throw e;
            }
            return new SidecarDatabase(dataSource, faults, Optional.empty(), urls, urls.pooled().toString());
        }
        EmbeddedDatabase embedded = EmbeddedDatabase.start(config.dataDirectory(), EMBEDDED_STARTUP_WAIT,
                EMBEDDED_STOP_WAIT);
        try {
            DatabaseUrl parsed = DatabaseUrl.parse(embedded.jdbcUrl());
            HikariDataSource dataSource = PostgresDataSources.create(parsed, pool, faults, true);
            return new SidecarDatabase(dataSource, faults, Optional.of(embedded), DatabaseUrls.same(parsed),
                    "embedded PostgreSQL on port " + embedded.port() + " in " + embedded.pgdata());
        } catch (RuntimeException e) {
            embedded.close();
            throw e;
        }
    }

    /**
     * Refuses a direct URL (the one migrations and {@code LISTEN} use: {@code BUZZ_DIRECT_DATABASE_URL}, else
     * {@code DATABASE_URL}) that leads through a transaction-mode pooler, in one sentence naming
     * {@code BUZZ_DIRECT_DATABASE_URL} (docs/failure-scenarios.md F29), instead of a failure deep in Flyway.
     */
    private static void requireSessions(DatabaseUrls urls) {
        Optional<String> shared = SharedSessionCheck.sharedSession(urls.direct());
        if (shared.isEmpty()) {
            return;
        }
        String pooler = " leads through a transaction-mode pooler such as PgBouncer (" + shared.get() + ")";
        if (urls.separateDirect()) {
            throw new InvalidConfigurationException(SidecarConfig.BUZZ_DIRECT_DATABASE_URL,
                    SidecarConfig.BUZZ_DIRECT_DATABASE_URL + " (" + urls.direct() + ")" + pooler + ", but migrations"
                            + " and LISTEN need a session of their own: point it at PostgreSQL itself, not the pooler");
        }
        throw new InvalidConfigurationException(SidecarConfig.DATABASE_URL, SidecarConfig.DATABASE_URL + " ("
                + urls.direct() + ")" + pooler + ", where migrations and LISTEN cannot keep the session they need: set "
                + SidecarConfig.BUZZ_DIRECT_DATABASE_URL + " to a direct connection to the database (the pool keeps"
                + " using DATABASE_URL)");
    }

    private static DatabaseUrl parse(String variable, String text) {
        try {
            return DatabaseUrl.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException(variable, variable + " is not usable: " + e.getMessage());
        }
    }

    /** The pool. */
    public DataSource dataSource() {
        return pool;
    }

    /** How the pool treats ended and read-only sessions (evicts them all; reports refused writes). */
    public SessionFaults sessionFaults() {
        return faults;
    }

    /** Where the pool connects, and where {@code LISTEN} and migrations do. */
    public DatabaseUrls urls() {
        return urls;
    }

    /**
     * Why this sidecar's database is gone for good (its embedded server died and could not be restarted), for
     * {@code GET /healthz}; empty while it can work (always, with {@code DATABASE_URL}: an external database's
     * outage is a readiness matter).
     */
    public Optional<String> failure() {
        return embedded.flatMap(EmbeddedDatabase::failure).map(reason -> "the embedded PostgreSQL " + reason);
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
        SchemaMigrator.MigrationReport report;
        if (urls.separateDirect()) {
            try (HikariDataSource direct = PostgresDataSources.create(urls.direct(),
                    new PoolSettings(MIGRATION_CONNECTIONS, Duration.ofSeconds(10), "buzz-migrate"))) {
                report = new SchemaMigrator(direct).migrate();
            }
        } else {
            report = new SchemaMigrator(pool).migrate();
        }
        LOG.info("database schema at version {} ({} migration(s) applied now) on {}", report.schemaVersion(),
                report.applied(), urls.separateDirect() ? urls.direct().toString() : description);
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

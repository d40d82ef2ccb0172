package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.adapters.http.HttpApi;
import buzz.scheduled.adapters.http.HttpSettings;
import buzz.scheduled.adapters.http.OwnerUseCases;
import buzz.scheduled.adapters.http.ReadinessCheck;
import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.postgres.PostgresReplayStore;
import buzz.scheduled.adapters.postgres.PostgresMessageAdmission;
import buzz.scheduled.adapters.postgres.PostgresOwnerMessageChanges;
import buzz.scheduled.adapters.postgres.PostgresOwnerMessageQueries;
import buzz.scheduled.adapters.postgres.SchemaMigrator;
import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.ScheduleIdSource;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.AuthenticateRequestService;
import buzz.scheduled.application.service.InProcessReplayStore;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.ScheduleId;
import com.sun.management.OperatingSystemMXBean;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The production admission path wired by hand (what bootstrap's Guice modules build, minus delivery): the HTTP API
 * on 127.0.0.1 over {@link OwnerMessagesService} and {@link AuthenticateRequestService}, both verifying BIP-340 with
 * {@link Bip340EventSignatures}, storing through {@link PostgresMessageAdmission} on a HikariCP pool of the production
 * size ({@link PoolSettings#DEFAULT}), with the default access policy ({@link RelayDecidesAccess}). The per-owner and
 * per-channel limits are set to {@value #UNLIMITED} so the load measures admission, not refusals.
 */
final class AdmissionStack implements AdmissionTarget {
    private static final OperatingSystemMXBean PROCESS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /**
     * Pending-per-owner and per-channel-window limit used here (defaults 100 and 30, docs/scheduled-messages.md §4).
     */
    static final int UNLIMITED = 1_000_000;
    /** The default horizon (docs/scheduled-messages.md §4). */
    static final Duration HORIZON = Duration.ofDays(120);

    private final HikariDataSource pool;
    private final HttpApi api;
    private final URI baseUrl;
    private final String schemaVersion;

    private AdmissionStack(HikariDataSource pool, HttpApi api, URI baseUrl, String schemaVersion) {
        this.pool = pool;
        this.api = api;
        this.baseUrl = baseUrl;
        this.schemaVersion = schemaVersion;
    }

    /**
     * Migrates the database and starts the API on a free loopback port.
     *
     * @param replayStore {@code postgres} (production's shared NIP-98 replay store) or {@code memory}
     *
     * @throws IllegalStateException when the port cannot be bound or the database refuses
     */
    static AdmissionStack start(DatabaseUrl database, String replayStore) {
        HikariDataSource pool = PostgresDataSources.create(database, PoolSettings.DEFAULT);
        try {
            String schemaVersion = new SchemaMigrator(pool).migrate().schemaVersion();
            EventSignatures signatures = new Bip340EventSignatures();
            // The benchmark is its own composition root, like bootstrap: the system clock and random ids.
            WallClock clock = Instant::now;
            ScheduleIdSource ids = () -> new ScheduleId(UUID.randomUUID());
            SchedulingSettings scheduling = new SchedulingSettings(
                    new AdmissionRules(AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, HORIZON),
                    new CreateLimits(UNLIMITED, UNLIMITED, Duration.ofMinutes(5)), Duration.ofSeconds(900));
            // Same host as the database: its clock stands in for the store's, and no dispatcher needs waking.
            OwnerMessagesService owner = new OwnerMessagesService(new PostgresOwnerMessageQueries(pool),
                    new PostgresMessageAdmission(pool), new PostgresOwnerMessageChanges(pool), signatures,
                    new RelayDecidesAccess(), ids, clock::now, DueWorkNotice.NONE, scheduling);
            int port = freeLoopbackPort();
            URI baseUrl = URI.create("http://127.0.0.1:" + port);
            HttpSettings settings = HttpSettings.of(true, baseUrl, HORIZON, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES,
                    UNLIMITED);
            HttpApi api = new HttpApi(OwnerUseCases.of(owner), new AuthenticateRequestService(signatures, clock,
                    AuthenticateRequestService.DEFAULT_WINDOW, "memory".equals(replayStore)
                    ? new InProcessReplayStore(AuthenticateRequestService.DEFAULT_REPLAY_CAPACITY, clock)
                    : new PostgresReplayStore(pool)), () -> databaseAnswers(pool), settings);
            api.start("127.0.0.1", port);
            return new AdmissionStack(pool, api, baseUrl, schemaVersion);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** {@code http://127.0.0.1:<port>}: where the API listens, and its {@code PUBLIC_BASE_URL}. */
    @Override
    public URI baseUrl() {
        return baseUrl;
    }

    /** The Flyway schema version the run uses. */
    String schemaVersion() {
        return schemaVersion;
    }

    /** The pool size the store runs with. */
    int poolSize() {
        return pool.getMaximumPoolSize();
    }

    /** Runs a query that answers one number, e.g. a row count. */
    long queryLong(String sql) {
        try (Connection connection = pool.getConnection();
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    /** Runs a query that answers one text, e.g. {@code SHOW server_version}. */
    String queryText(String sql) {
        try (Connection connection = pool.getConnection();
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * CPU time used so far by the PostgreSQL backends serving this database (user + system, from
     * {@code /proc/<pid>/stat} in 10 ms ticks), nanoseconds; 0 when {@code /proc} cannot be read (another host or
     * operating system). Shared server processes (WAL writer, checkpointer) are not included.
     */
    @Override
    public long databaseCpuNanos() {
        return DatabaseCpu.backendNanos(pool);
    }

    @Override
    public String describe() {
        return "the admission stack in this JVM at " + baseUrl + ", PostgreSQL " + queryText("SHOW server_version")
                + ", schema V" + schemaVersion + ", pool " + poolSize();
    }

    /** This JVM's CPU time: the server's and the clients' together. */
    @Override
    public long serverCpuNanos() {
        return PROCESS.getProcessCpuTime();
    }

    /** Not known: the shared server need not preload {@code pg_stat_statements}. */
    @Override
    public OptionalLong statements() {
        return OptionalLong.empty();
    }

    @Override
    public long storedMessages() {
        return queryLong("SELECT count(*) FROM scheduled_message");
    }

    @Override
    public List<String> statementProfile(long creates) {
        return List.of();
    }

    @Override
    public void resetStatementProfile() {
        // nothing gathered
    }

    /** Stops the API, then closes the pool; idempotent. */
    @Override
    public void close() {
        try {
            api.stop();
        } finally {
            pool.close();
        }
    }

    @Override
    public String toString() {
        return "admission stack at " + baseUrl;
    }

    private static ReadinessCheck.Readiness databaseAnswers(HikariDataSource pool) {
        try (Connection connection = pool.getConnection()) {
            return connection.isValid(2) ? new ReadinessCheck.Readiness.Ready()
                    : new ReadinessCheck.Readiness.NotReady("the database did not answer within 2 s");
        } catch (SQLException e) {
            return new ReadinessCheck.Readiness.NotReady("the database did not answer: " + e.getMessage());
        }
    }

    // PUBLIC_BASE_URL must be known before the API starts, so the port is chosen first; another process could
    // take it in between, and then start() fails loudly rather than measuring something else.
    private static int freeLoopbackPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}

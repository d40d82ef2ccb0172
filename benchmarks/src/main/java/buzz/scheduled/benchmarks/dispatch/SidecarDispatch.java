package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal;
import buzz.scheduled.adapters.postgres.PostgresDeliveryStore;
import buzz.scheduled.adapters.postgres.SchemaMigrator;
import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.Dispatcher;
import buzz.scheduled.application.service.DispatcherCounts;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.benchmarks.admission.DatabaseCpu;
import buzz.scheduled.bootstrap.metrics.DeliveryOutcomes;
import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import buzz.scheduled.domain.schedule.Backoff;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The sidecar's delivery wired by hand as bootstrap's {@code DeliveryModule} and {@code Sidecar} wire it, with the
 * production defaults of {@code SidecarConfig}: {@link Dispatcher} over {@link PostgresDeliveryStore} on a HikariCP
 * pool of the production size ({@link PoolSettings#DEFAULT}), the
 * default access policy ({@link RelayDecidesAccess}), {@link PostgresDueWorkSignal} ({@code LISTEN}) for wake-ups and
 * the {@link RelayClient} (JDK WebSocket) with a fresh sidecar key for NIP-42. Only the number of sends in flight
 * (and the claim batch, equal to it as in production) comes from the options.
 */
final class SidecarDispatch implements SchedulerUnderTest {
    /** {@code BUZZ_LEASE_SECONDS} default. */
    static final Duration LEASE = Duration.ofSeconds(60);
    /** {@code BUZZ_PUBLISH_TIMEOUT_SECONDS} default. */
    static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration LEASE_MARGIN = Duration.ofSeconds(5);
    private static final Duration REAP_GRACE = Duration.ofSeconds(10);
    private static final Duration MAX_LATENESS = Duration.ofSeconds(900);
    private static final Duration POLL = Duration.ofSeconds(30);
    private static final Duration REAP_EVERY = Duration.ofSeconds(5);
    private static final Duration ERROR_PAUSE = Duration.ofSeconds(1);
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(15);

    private final HikariDataSource pool;
    private final PostgresDueWorkSignal signal;
    private final RelayClient relay;
    private final Dispatcher dispatcher;
    private final int inFlight;
    private final int claimBatch;
    private final String schemaVersion;
    private boolean started;
    private boolean closed;

    private SidecarDispatch(HikariDataSource pool, PostgresDueWorkSignal signal, RelayClient relay,
                            Dispatcher dispatcher, int inFlight, int claimBatch, String schemaVersion) {
        this.pool = pool;
        this.signal = signal;
        this.relay = relay;
        this.dispatcher = dispatcher;
        this.inFlight = inFlight;
        this.claimBatch = claimBatch;
        this.schemaVersion = schemaVersion;
    }

    /**
     * Migrates the database and builds the dispatcher (not started).
     *
     * @param database a scratch database
     * @param relayUrl the loopback relay
     * @param inFlight   {@code BUZZ_MAX_IN_FLIGHT}: the window of frames in flight
     * @param claimBatch {@code BUZZ_CLAIM_BATCH_SIZE}: the largest claim
     * @param clock    the wall clock (NIP-42 AUTH events' {@code created_at})
     */
    static SidecarDispatch create(DatabaseUrl database, URI relayUrl, int inFlight, int claimBatch, WallClock clock) {
        HikariDataSource pool = PostgresDataSources.create(database, PoolSettings.DEFAULT);
        try {
            String schemaVersion = new SchemaMigrator(pool).migrate().schemaVersion();
            PostgresDeliveryStore store = new PostgresDeliveryStore(pool);
            DeliverySettings delivery = new DeliverySettings(LEASE, PUBLISH_TIMEOUT, LEASE_MARGIN, REAP_GRACE,
                    MAX_LATENESS, new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(120),
                    () -> ThreadLocalRandom.current().nextDouble()));
            SecureRandom random = new SecureRandom();
            RelayClient relay = new RelayClient(RelaySettings.of(relayUrl),
                    AuthEventSigner.with(new Bip340Signer(SecretKey.generate(random), random)), clock);
            PostgresDueWorkSignal signal = new PostgresDueWorkSignal(PostgresDueWorkSignal.connectorFor(database),
                    PostgresDueWorkSignal.ListenSettings.DEFAULT);
            // The production observer: the lateness histogram and outcome counters (its log line is below the
            // benchmark's log level, as it would be for an operator who logs at WARN).
            Dispatcher dispatcher = new Dispatcher(store, relay, new RelayDecidesAccess(), RelayLimits.UNKNOWN, signal,
                    new DeliveryOutcomes(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)), new DispatcherSettings(delivery, inFlight, claimBatch,
                    DispatcherSettings.DEFAULT_MAX_QUEUED_BYTES, POLL, REAP_EVERY, ERROR_PAUSE));
            return new SidecarDispatch(pool, signal, relay, dispatcher, inFlight, claimBatch, schemaVersion);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "sidecar";
    }

    @Override
    public String configuration() {
        return String.format(Locale.ROOT, "Dispatcher: window of %d frames in flight, claims of up to %d, lease %d s, "
                        + "publish timeout %d s, LISTEN wake-ups, backstop poll %d s; schema V%s; pool %d", inFlight,
                claimBatch,
                LEASE.toSeconds(), PUBLISH_TIMEOUT.toSeconds(), POLL.toSeconds(), schemaVersion,
                pool.getMaximumPoolSize());
    }

    /** Writes the rows as admission would have left them ({@link DueRows#insert}). */
    @Override
    public void insert(List<DueEvent> events) {
        DueRows.insert(pool, events);
    }

    @Override
    public void connect() {
        signal.start();
        relay.connect();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!(relay.isConnected() && signal.listening())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not ready within 10 s: relay connected " + relay.isConnected()
                        + ", LISTEN in effect " + signal.listening());
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    @Override
    public void start() {
        started = true;
        dispatcher.start();
    }

    @Override
    public long completed() {
        return queryLong("SELECT count(*) FROM scheduled_message WHERE state = 'published'");
    }

    @Override
    public Map<String, Long> outcomes() {
        Map<String, Long> outcomes = new TreeMap<>();
        try (Connection connection = pool.getConnection();
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT state || coalesce(' ' || reason, ''), count(*)"
                     + " FROM scheduled_message GROUP BY 1")) {
            while (rows.next()) {
                outcomes.put(rows.getString(1), rows.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("counting rows by state failed: " + e.getMessage(), e);
        }
        DispatcherCounts counts = dispatcher.counts();
        outcomes.put("(claims)", counts.claimed());
        outcomes.put("(sends)", counts.sent());
        outcomes.put("(retried)", counts.retried());
        outcomes.put("(errors)", counts.errors());
        return outcomes;
    }

    /** Messages this dispatcher recorded published so far (from memory; no query, no connection). */
    long published() {
        return dispatcher.counts().published();
    }

    /** The pool's connections now: in use, and open in all. */
    int[] poolConnections() {
        com.zaxxer.hikari.HikariPoolMXBean bean = pool.getHikariPoolMXBean();
        return bean == null ? new int[] {0, 0} : new int[] {bean.getActiveConnections(), bean.getTotalConnections()};
    }

    @Override
    public long databaseCpuNanos() {
        return DatabaseCpu.backendNanos(pool);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (started) {
                dispatcher.stop(SHUTDOWN_GRACE);
            }
        } finally {
            relay.close();
            signal.close();
            pool.close();
        }
    }

    @Override
    public String toString() {
        return "sidecar dispatcher";
    }

    private long queryLong(String sql) {
        try (Connection connection = pool.getConnection();
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + sql + ": " + e.getMessage(), e);
        }
    }
}

package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.benchmarks.admission.DatabaseCpu;
import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The same burn-down through db-scheduler 16.9.0 ({@code com.github.kagkarlsson:db-scheduler}): one
 * {@link OneTimeTask} instance per event (instance id = event id, task data = the event's wire JSON, as the sidecar
 * stores it), executed by a {@link Scheduler} polling with lock-and-fetch ({@code SELECT … FOR UPDATE SKIP LOCKED}
 * in one statement) on a pool of the same size as the sidecar's. The task reads the event and publishes it through
 * the sidecar's {@link RelayClient} to the same relay, waiting for the {@code OK} with the sidecar's publish
 * timeout; an answer other than {@code OK true} fails the execution (db-scheduler retries it in 5 minutes).
 *
 * <p>What db-scheduler does not do that the sidecar does: fencing tokens and a pre-send re-check of the row, the
 * lateness limit, revision and cancel checks, and the access policy. Its per-execution cost is one
 * lock-and-fetch share and one {@code DELETE} when the task completes.
 */
final class DbSchedulerDispatch implements SchedulerUnderTest {
    /** The task's name in {@code scheduled_tasks}. */
    static final String TASK = "publish-event";
    private static final String DDL = "/db-scheduler/postgresql_tables.sql";
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(15);
    private static final int INSERT_BATCH = 1_000;

    private final HikariDataSource pool;
    private final RelayClient relay;
    private final OneTimeTask<String> task;
    private final Scheduler scheduler;
    private final int threads;
    private final double lowerLimit;
    private final double upperLimit;
    private final Duration pollInterval;
    private final AtomicLong inserted = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private boolean started;
    private boolean closed;

    private DbSchedulerDispatch(HikariDataSource pool, RelayClient relay, int threads, double lowerLimit,
                                double upperLimit, Duration pollInterval) {
        this.pool = pool;
        this.relay = relay;
        this.threads = threads;
        this.lowerLimit = lowerLimit;
        this.upperLimit = upperLimit;
        this.pollInterval = pollInterval;
        this.task = Tasks.oneTime(TASK, String.class).execute((instance, context) -> publish(instance.getData()));
        this.scheduler = Scheduler.create(pool, task)
                .threads(threads)
                .pollingInterval(pollInterval)
                .pollUsingLockAndFetch(lowerLimit, upperLimit)
                .schedulerName(new SchedulerName.Fixed("buzz-bench"))
                .shutdownMaxWait(SHUTDOWN_GRACE)
                .build();
    }

    /**
     * Creates db-scheduler's table and builds the scheduler (not started).
     *
     * @param database     a scratch database
     * @param relayUrl     the loopback relay
     * @param threads      execution threads (the sidecar's sends in flight)
     * @param lowerLimit   lock-and-fetch lower limit, fraction of the threads
     * @param upperLimit   lock-and-fetch upper limit, fraction of the threads
     * @param pollInterval how often it polls when idle
     * @param clock        the wall clock (NIP-42 AUTH events' {@code created_at}; the relay never asks)
     */
    static DbSchedulerDispatch create(DatabaseUrl database, URI relayUrl, int threads, double lowerLimit,
                                      double upperLimit, Duration pollInterval, WallClock clock) {
        HikariDataSource pool = PostgresDataSources.create(database,
                new PoolSettings(PoolSettings.DEFAULT.maximumPoolSize(), PoolSettings.DEFAULT.connectionTimeout(),
                        "db-scheduler"));
        try {
            try (Connection connection = pool.getConnection();
                 Statement statement = connection.createStatement()) {
                statement.execute(ddl());
            }
            SecureRandom random = new SecureRandom();
            RelayClient relay = new RelayClient(RelaySettings.of(relayUrl),
                    AuthEventSigner.with(new Bip340Signer(SecretKey.generate(random), random)), clock);
            return new DbSchedulerDispatch(pool, relay, threads, lowerLimit, upperLimit, pollInterval);
        } catch (SQLException e) {
            pool.close();
            throw new IllegalStateException("creating db-scheduler's table failed: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return String.format(Locale.ROOT, "dbs %dt %.1f/%.1f", threads, lowerLimit, upperLimit);
    }

    @Override
    public String configuration() {
        return String.format(Locale.ROOT, "db-scheduler 16.9.0: %d threads, lock-and-fetch %.2f/%.2f (fetch again at "
                        + "%d left, up to %d), polling interval %d ms; pool %d", threads, lowerLimit, upperLimit,
                (int) (lowerLimit * threads), (int) (upperLimit * threads), pollInterval.toMillis(),
                pool.getMaximumPoolSize());
    }

    /** Schedules one task instance per event at its due time, through db-scheduler's own client, in batches. */
    @Override
    public void insert(List<DueEvent> events) {
        SchedulerClient client = SchedulerClient.Builder.create(pool, task).build();
        for (int from = 0; from < events.size(); from += INSERT_BATCH) {
            List<SchedulableInstance<?>> batch = new ArrayList<>();
            for (DueEvent due : events.subList(from, Math.min(events.size(), from + INSERT_BATCH))) {
                batch.add(SchedulableInstance.of(task.instance(due.id(), due.json()),
                        Instant.ofEpochSecond(due.dueSecond())));
            }
            client.scheduleBatch(batch);
        }
        inserted.addAndGet(events.size());
        try (Connection connection = pool.getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("ANALYZE scheduled_tasks");
        } catch (SQLException e) {
            throw new IllegalStateException("ANALYZE scheduled_tasks failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void connect() {
        relay.connect();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!relay.isConnected()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the relay connection was not up within 10 s");
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    @Override
    public void start() {
        started = true;
        scheduler.start();
    }

    /** Inserted instances whose row is gone: db-scheduler deletes a one-time task's row when it completes. */
    @Override
    public long completed() {
        return inserted.get() - queryLong("SELECT count(*) FROM scheduled_tasks");
    }

    @Override
    public Map<String, Long> outcomes() {
        Map<String, Long> outcomes = new TreeMap<>();
        outcomes.put("completed", completed());
        outcomes.put("left", queryLong("SELECT count(*) FROM scheduled_tasks"));
        outcomes.put("failed once", queryLong("SELECT count(*) FROM scheduled_tasks WHERE consecutive_failures > 0"));
        outcomes.put("(OK true)", published.get());
        outcomes.put("(other answers)", refused.get());
        return outcomes;
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
                scheduler.stop();
            }
        } finally {
            relay.close();
            pool.close();
        }
    }

    @Override
    public String toString() {
        return "db-scheduler";
    }

    /** The task body: read the stored event, publish it, wait for the relay's answer. */
    private void publish(String json) {
        NostrEvent event = switch (NostrEventJson.read(json)) {
            case NostrEventJson.Decoded.Event decoded -> decoded.event();
            case NostrEventJson.Decoded.Malformed malformed ->
                    throw new IllegalStateException("stored event is malformed: " + malformed.reason());
        };
        PublishResult result = relay.publish(event, SidecarDispatch.PUBLISH_TIMEOUT);
        if (result instanceof PublishResult.Published) {
            published.incrementAndGet();
        } else {
            refused.incrementAndGet();
            throw new IllegalStateException("relay did not accept " + event.id().hex() + ": " + result);
        }
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

    private static String ddl() {
        try (InputStream in = DbSchedulerDispatch.class.getResourceAsStream(DDL)) {
            if (in == null) {
                throw new IllegalStateException("resource " + DDL + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + DDL + " failed", e);
        }
    }
}

package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.http.HttpApi;
import buzz.scheduled.adapters.postgres.PostgresDatabaseProbe;
import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal;
import buzz.scheduled.adapters.relay.Nip11RelayLimits;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelayExchange;
import buzz.scheduled.adapters.relay.dvm.DvmFeed;
import buzz.scheduled.adapters.relay.nip29.GroupFeed;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.PruneRetentionUseCase;
import buzz.scheduled.application.port.in.QueueStatsUseCase;
import buzz.scheduled.application.port.out.LinkStatus;
import buzz.scheduled.application.port.out.NoticeOutbox;
import buzz.scheduled.application.service.DatabaseWatch;
import buzz.scheduled.application.service.Dispatcher;
import buzz.scheduled.application.service.JobRequestService;
import buzz.scheduled.application.service.NoticeService;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.config.SidecarConfig.AccessPolicyChoice;
import buzz.scheduled.bootstrap.database.SidecarDatabase;
import buzz.scheduled.bootstrap.metrics.QueueGauges;
import buzz.scheduled.bootstrap.metrics.SidecarMeters;
import buzz.scheduled.domain.nostr.PublicKey;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Module;
import com.google.inject.Stage;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running sidecar of {@code serve}: database (embedded or external), migrated schema, the sidecar key, the wired
 * object graph, the database watch (readiness and clock skew), the relay's NIP-11 limits (read once, then refreshed),
 * the NIP-29 group feed (only with {@code BUZZ_ACCESS_POLICY=nip29}), delivery (LISTEN wake-ups, relay connection, dispatcher), the periodic retention
 * passes and the HTTP API. Parts are opened in that order and
 * closed in reverse (HTTP first, then retention, the dispatcher, ..., the group feed, the embedded database last).
 * {@link #close()} is what the shutdown hook calls, and may run while {@link #start} is still opening parts (a
 * signal during start-up).
 */
public final class Sidecar implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sidecar.class);

    static {
        // No Guice AOP here: without its bytecode generation Guice never reaches sun.misc.Unsafe, whose JDK 24+
        // warning would be a plain-text line on stderr amid BUZZ_LOG_FORMAT=json output.
        if (System.getProperty("guice_bytecode_gen_option") == null) {
            System.setProperty("guice_bytecode_gen_option", "DISABLED");
        }
    }

    /** Pause between notice passes. */
    static final Duration NOTICE_PASS_EVERY = Duration.ofSeconds(2);
    /** Pause between passes that answer finished kind-5905 requests. */
    static final Duration ANSWER_PASS_EVERY = Duration.ofSeconds(1);

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    private boolean closed;
    private volatile Injector injector;
    private volatile int httpPort;

    /** An empty sidecar; {@link #start} opens its parts. */
    public Sidecar() {
    }

    /**
     * Opens the database, migrates it (refusing a schema newer than this build), wires the object graph and starts
     * listening. On failure everything opened so far is closed again before the exception leaves.
     *
     * @throws buzz.scheduled.adapters.postgres.SchemaNewerThanBinaryException when a newer build migrated the database
     * @throws buzz.scheduled.bootstrap.config.InvalidConfigurationException   when a setting turns out unusable
     * @throws IOException when the embedded database or the listener cannot start
     */
    public void start(SidecarConfig config) throws IOException {
        try {
            SidecarDatabase database = own(SidecarDatabase.open(config));
            database.migrate();
            SecretKey key = SidecarKeys.readOrCreate(config.relay().secretKeyFile());
            LOG.info("sidecar public key {} (from {})", key.publicKey().hex(), config.relay().secretKeyFile());
            injector = Guice.createInjector(Stage.PRODUCTION, modules(config, database, key));
            startDatabaseWatch();
            // Before admission and delivery: the first requests already see the relay's limits.
            own(injector.getInstance(Nip11RelayLimits.class)).start();
            registerMeters(config, database);
            if (config.access().policy() == AccessPolicyChoice.NIP29) {
                startGroupFeed(config);
            }
            startDelivery(config);
            startNostr(config);
            RetentionPasses retention = own(new RetentionPasses(injector.getInstance(PruneRetentionUseCase.class),
                    RetentionPasses.FIRST_PASS_AFTER, RetentionPasses.EVERY));
            retention.start();
            HttpApi http = injector.getInstance(HttpApi.class).reportHealth(database::failure);
            own((AutoCloseable) http::stop);
            try {
                httpPort = http.start(config.http().host(), config.http().port());
            } catch (RuntimeException e) {
                throw new IllegalStateException("cannot listen on " + config.http().host() + ":" + config.http().port()
                        + " (HTTP_HOST, HTTP_PORT): " + e.getMessage(), e);
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Checks the database once (so admission has the clock skew and readiness a state before the first request), then
     * every second on the watch's own thread; closed after the HTTP API, its probe connection after it.
     */
    private void startDatabaseWatch() {
        own(injector.getInstance(PostgresDatabaseProbe.class));
        DatabaseWatch watch = own(injector.getInstance(DatabaseWatch.class));
        watch.check();
        watch.start();
    }

    /**
     * Starts following the relay's NIP-29 group state. Before delivery, so the dispatcher's first pre-send checks
     * find the feed syncing; closed after the dispatcher stopped and before the pool (it carries out removals and
     * deletions through it). Until the backlog is read the policy answers "unavailable" (admission {@code 503},
     * delivery retries).
     */
    private void startGroupFeed(SidecarConfig config) {
        GroupFeed feed = own(injector.getInstance(GroupFeed.class));
        feed.start();
        LOG.info("following NIP-29 group state on {} (relay key {})", config.relay().url(),
                config.access().relayPubkey().map(PublicKey::hex).orElse("its NIP-11 self"));
    }

    /**
     * Starts the wake-up listener, the relay connection and the dispatcher, registered so that closing stops the
     * dispatcher first (graceful: in-flight sends finish within {@code BUZZ_SHUTDOWN_GRACE_SECONDS}), then the relay
     * connection and the listener.
     */
    private void startDelivery(SidecarConfig config) {
        PostgresDueWorkSignal signal = injector.getInstance(PostgresDueWorkSignal.class);
        own(signal);
        signal.start();
        RelayClient relay = injector.getInstance(RelayClient.class);
        own(relay);
        relay.connect();
        Dispatcher dispatcher = injector.getInstance(Dispatcher.class);
        Duration grace = config.delivery().shutdownGrace();
        own((AutoCloseable) () -> {
            Dispatcher.Shutdown left = dispatcher.stop(grace);
            LOG.info("dispatcher stopped: {} claim(s) given back, {} send(s) still unfinished (grace {} s)",
                    left.released(), left.unfinished(), grace.toSeconds());
        });
        dispatcher.start();
        LOG.info("delivering to {}", config.relay().url());
    }

    /**
     * Switches the notice outbox on or off for the database ({@code BUZZ_NOTICES}), then starts the notice sender and,
     * with {@code BUZZ_DVM=on}, the kind-5905 feed and its answers (docs/nostr.md). After delivery, whose relay
     * connection they publish on; closed before it.
     */
    private void startNostr(SidecarConfig config) {
        SidecarConfig.Nostr nostr = config.nostr();
        injector.getInstance(NoticeOutbox.class).switchTo(nostr.notices());
        if (!nostr.notices() && !nostr.dvm()) {
            return;
        }
        own(injector.getInstance(RelayExchange.class));
        if (nostr.notices()) {
            NoticeService notices = injector.getInstance(NoticeService.class);
            own(new NostrPasses("buzz-notices", () -> notices.sendDue().notices(), NOTICE_PASS_EVERY));
            LOG.info("NIP-17 notices on: at most {} an hour per owner", nostr.noticesPerOwnerPerHour());
        }
        if (nostr.dvm()) {
            JobRequestService jobs = injector.getInstance(JobRequestService.class);
            own(new NostrPasses("buzz-dvm-answers", jobs::answerFinished, ANSWER_PASS_EVERY));
            DvmFeed feed = own(injector.getInstance(DvmFeed.class));
            feed.start();
            LOG.info("NIP-90 kind-5905 front door on: following {} for requests to {}", config.relay().url(),
                    injector.getInstance(SecretKey.class).publicKey());
        }
    }

    /**
     * Adds to the registry what needs the running parts: HikariCP's own Micrometer tracker on the pool, the queue
     * gauges, the database watch's gauges, the dispatcher's and the relay client's counters.
     */
    private void registerMeters(SidecarConfig config, SidecarDatabase database) {
        PrometheusMeterRegistry registry = injector.getInstance(PrometheusMeterRegistry.class);
        if (database.dataSource() instanceof HikariDataSource pool) {
            pool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
        }
        DatabaseStatusUseCase databaseStatus = injector.getInstance(DatabaseStatusUseCase.class);
        QueueGauges.register(registry, injector.getInstance(QueueStatsUseCase.class), databaseStatus,
                injector.getInstance(LinkStatus.class), config.access().policy() == AccessPolicyChoice.NIP29);
        SidecarMeters.databaseGauges(registry, databaseStatus);
        SidecarMeters.deliveryCounters(registry, injector.getInstance(Dispatcher.class));
        SidecarMeters.relayCounters(registry, injector.getInstance(RelayClient.class));
    }

    /** The modules of the object graph. */
    static List<Module> modules(SidecarConfig config, SidecarDatabase database, SecretKey key) {
        return List.of(new SidecarModule(config, database.dataSource(), database.urls()), new RelayModule(key),
                new AccessModule(config.access().policy()), new PersistenceModule(), new ApplicationModule(),
                new HttpModule(), new DeliveryModule(), new MetricsModule(), new NostrModule());
    }

    /** The wired object graph (after {@link #start}). */
    public Injector injector() {
        if (injector == null) {
            throw new IllegalStateException("the sidecar has not started");
        }
        return injector;
    }

    /** The port the HTTP listener is bound to (after {@link #start}). */
    public int httpPort() {
        return httpPort;
    }

    /** Closes every opened part in reverse order; later parts fail to open. Idempotent. */
    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (this) {
            closed = true;
            toClose = List.copyOf(opened);
            opened.clear();
        }
        for (AutoCloseable part : toClose) {
            closeQuietly(part);
        }
    }

    private <T extends AutoCloseable> T own(T part) {
        synchronized (this) {
            if (!closed) {
                opened.push(part);
                return part;
            }
        }
        closeQuietly(part);
        throw new IllegalStateException("the sidecar is shutting down");
    }

    private static void closeQuietly(AutoCloseable part) {
        try {
            part.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed: {}", part.getClass().getSimpleName(), e.toString());
        }
    }
}

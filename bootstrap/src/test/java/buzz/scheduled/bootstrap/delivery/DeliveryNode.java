package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PostgresDeliveryStore;
import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal;
import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.Dispatcher;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.schedule.Backoff;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * One node's delivery half wired from the real parts, as bootstrap's DeliveryModule wires it: the PostgreSQL stores
 * over a pool, the relay client (NIP-42 AUTH with a fresh key), the LISTEN signal on its own connection, and the
 * dispatcher, which starts once the relay client is connected and the signal listens. The one fixture of every
 * bootstrap test that wires delivery by hand (the delivery tests, and the access tests' {@code AccessStack}).
 *
 * <pre>{@code
 * try (DeliveryNode node = DeliveryNode.on(db.dataSource(), db.jdbcUrl(), RelaySettings.of(relay.url()))
 *         .named("a").settings(settings).recording(sends).start()) { ... }
 * }</pre>
 */
public final class DeliveryNode implements AutoCloseable {
    /**
     * The delivery settings serve starts with: lease 30 s, publish timeout 10 s, margin 2 s, reap grace 5 s,
     * lateness limit 900 s, retries backing off from 1 s to 60 s.
     */
    static final DeliverySettings SERVE_DEFAULTS = new DeliverySettings(Duration.ofSeconds(30),
            Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(900),
            new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), Math::random));
    /**
     * How long a starting node may take to connect and LISTEN: a second node may start while a first floods the
     * relay with its work, on a machine shared with other builds.
     */
    static final Duration READY_WITHIN = Duration.ofSeconds(60);

    final String name;
    /** The owner's store over the same rows (for scheduling messages and reading them back). */
    public final PostgresOwnerMessages store;
    public final RelayClient relayClient;
    public final PostgresDueWorkSignal signal;
    public final Dispatcher dispatcher;

    private DeliveryNode(String name, PostgresOwnerMessages store, RelayClient relayClient,
                         PostgresDueWorkSignal signal, Dispatcher dispatcher) {
        this.name = name;
        this.store = store;
        this.relayClient = relayClient;
        this.signal = signal;
        this.dispatcher = dispatcher;
    }

    /**
     * A node to start on the database behind {@code pool} against the relay of {@code relaySettings}.
     *
     * @param pool    its connection pool (a node of its own gets a pool of its own)
     * @param jdbcUrl where the LISTEN connection goes
     */
    public static Wiring on(DataSource pool, String jdbcUrl, RelaySettings relaySettings) {
        return new Wiring(pool, jdbcUrl, relaySettings);
    }

    /** Like {@link #on(DataSource, String, RelaySettings)} with the relay client's default settings. */
    public static Wiring on(DataSource pool, String jdbcUrl, URI relayUrl) {
        return on(pool, jdbcUrl, RelaySettings.of(relayUrl));
    }

    /** How a node is wired; every part but the pool and the relay has a default. */
    public static final class Wiring {
        private final DataSource pool;
        private final String jdbcUrl;
        private final RelaySettings relaySettings;
        private String name = "node";
        private DispatcherSettings settings = DispatcherSettings.defaults(SERVE_DEFAULTS);
        private AccessPolicy access = new RelayDecidesAccess();
        private Optional<Collection<RecordingPublisher.Send>> sends = Optional.empty();
        private UnaryOperator<DeliveryStore> wrap = UnaryOperator.identity();

        private Wiring(DataSource pool, String jdbcUrl, RelaySettings relaySettings) {
            this.pool = pool;
            this.jdbcUrl = jdbcUrl;
            this.relaySettings = relaySettings;
        }

        /** The node's name, on its recorded sends (default {@code node}). */
        public Wiring named(String nodeName) {
            this.name = nodeName;
            return this;
        }

        /** The dispatcher's settings (default: serve's, {@link #SERVE_DEFAULTS}). */
        public Wiring settings(DispatcherSettings dispatcherSettings) {
            this.settings = dispatcherSettings;
            return this;
        }

        /** The access policy of the pre-send check (default: the relay decides). */
        public Wiring access(AccessPolicy policy) {
            this.access = policy;
            return this;
        }

        /** Records every publish into {@code sink}, with the database clock (default: not recorded). */
        public Wiring recording(Collection<RecordingPublisher.Send> sink) {
            this.sends = Optional.of(sink);
            return this;
        }

        /** Lets a test interfere with the delivery store's calls (default: none). */
        public Wiring wrapping(UnaryOperator<DeliveryStore> deliveryStore) {
            this.wrap = deliveryStore;
            return this;
        }

        /**
         * Starts the node: connects to the relay and LISTENs, waits until both are up (at most
         * {@link #READY_WITHIN}), then starts the dispatcher.
         */
        public DeliveryNode start() {
            DeliveryNode node = connect();
            try {
                Poll.until("node " + name + " to connect to the relay and LISTEN", READY_WITHIN,
                        () -> node.relayClient.isConnected() && node.signal.listening());
            } catch (RuntimeException | AssertionError e) {
                node.signal.close();
                node.relayClient.close();
                throw e;
            }
            node.dispatcher.start();
            return node;
        }

        /** The node with its connections opened and its dispatcher made, not yet started. */
        private DeliveryNode connect() {
            PostgresOwnerMessages store = new PostgresOwnerMessages(pool);
            DeliveryStore delivery = wrap.apply(new PostgresDeliveryStore(pool));
            Bip340Signer sidecarKey = new Bip340Signer(SecretKey.generate(new SecureRandom()), new SecureRandom());
            RelayClient relayClient = new RelayClient(relaySettings,
                    (url, challenge, createdAt) -> sidecarKey.sign(createdAt, 22242,
                            List.of(List.of("relay", url), List.of("challenge", challenge)), ""),
                    Instant::now);
            relayClient.connect();
            PostgresDueWorkSignal signal = PostgresDueWorkSignal.listen(DatabaseUrl.parse(jdbcUrl));
            RelayPublisher publisher = sends.<RelayPublisher>map(
                    sink -> new RecordingPublisher(name, relayClient, store::now, sink)).orElse(relayClient);
            Dispatcher dispatcher = new Dispatcher(delivery, publisher, access, RelayLimits.UNKNOWN, signal,
                    DeliveryObserver.NONE, settings);
            return new DeliveryNode(name, store, relayClient, signal, dispatcher);
        }
    }

    /** Publishes one message of a new author, so the relay's slow first signature check (JIT) is out of the way. */
    void warmUp() {
        assertThat(relayClient.publish(new Authors().message(Instant.now(), "warm-up"), Duration.ofSeconds(20)))
                .isInstanceOf(PublishResult.Published.class);
    }

    /** The next whole second by the database clock: a due time just ahead. */
    Instant nextSecond() {
        return store.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    }

    /** {@code message}'s state now ({@code scheduled}, {@code published}, ...). */
    String state(ScheduledMessage message) {
        return store.find(message.id()).orElseThrow().state().wireName();
    }

    /** Stops the dispatcher gracefully, then the listener and the relay client. */
    public Dispatcher.Shutdown stop() {
        try {
            return dispatcher.stop(Duration.ofSeconds(10));
        } finally {
            signal.close();
            relayClient.close();
        }
    }

    @Override
    public void close() {
        stop();
    }
}

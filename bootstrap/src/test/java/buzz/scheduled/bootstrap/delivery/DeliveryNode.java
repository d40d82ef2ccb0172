package buzz.scheduled.bootstrap.delivery;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PostgresDeliveryStore;
import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal;
import buzz.scheduled.adapters.postgres.PostgresScheduleStore;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.service.Dispatcher;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.application.testing.Poll;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * One node's delivery half wired from the real parts, as bootstrap's DeliveryModule wires it: the PostgreSQL stores
 * over a pool, the relay client (behind a {@link RecordingPublisher}), the LISTEN signal on its own connection, and
 * the dispatcher. The one fixture of the delivery tests.
 */
final class DeliveryNode implements AutoCloseable {
    final String name;
    /** The owner's store over the same rows (for scheduling messages and reading them back). */
    final PostgresScheduleStore store;
    final RelayClient relayClient;
    final PostgresDueWorkSignal signal;
    final Dispatcher dispatcher;

    private DeliveryNode(String name, PostgresScheduleStore store, RelayClient relayClient,
                         PostgresDueWorkSignal signal, Dispatcher dispatcher) {
        this.name = name;
        this.store = store;
        this.relayClient = relayClient;
        this.signal = signal;
        this.dispatcher = dispatcher;
    }

    /**
     * Starts a node.
     *
     * @param pool     its connection pool (a node of its own gets a pool of its own)
     * @param jdbcUrl  where the LISTEN connection goes
     * @param relayUrl the relay
     * @param sends    where every publish is recorded
     * @param wrap     lets a test interfere with the delivery store's calls (identity for none)
     */
    static DeliveryNode start(String name, DataSource pool, String jdbcUrl, URI relayUrl, DispatcherSettings settings,
                              Collection<RecordingPublisher.Send> sends, UnaryOperator<DeliveryStore> wrap) {
        return start(name, pool, jdbcUrl, RelaySettings.of(relayUrl), settings, sends, wrap);
    }

    /** Like the other, with explicit relay client settings (reconnect backoff). */
    static DeliveryNode start(String name, DataSource pool, String jdbcUrl, RelaySettings relaySettings,
                              DispatcherSettings settings, Collection<RecordingPublisher.Send> sends,
                              UnaryOperator<DeliveryStore> wrap) {
        PostgresScheduleStore store = new PostgresScheduleStore(pool);
        DeliveryStore delivery = wrap.apply(new PostgresDeliveryStore(pool));
        Bip340Signer sidecarKey = new Bip340Signer(SecretKey.generate(new SecureRandom()), new SecureRandom());
        RelayClient relayClient = new RelayClient(relaySettings,
                (url, challenge, createdAt) -> sidecarKey.sign(createdAt, 22242,
                        List.of(List.of("relay", url), List.of("challenge", challenge)), ""),
                Instant::now);
        relayClient.connect();
        PostgresDueWorkSignal signal = PostgresDueWorkSignal.listen(DatabaseUrl.parse(jdbcUrl));
        Dispatcher dispatcher = new Dispatcher(delivery, new RecordingPublisher(name, relayClient, store, sends),
                new RelayDecidesAccess(), RelayLimits.UNKNOWN, signal, DeliveryObserver.NONE, settings);
        dispatcher.start();
        Poll.until("node " + name + " to connect to the relay and LISTEN", Duration.ofSeconds(20),
                () -> relayClient.isConnected() && signal.listening());
        return new DeliveryNode(name, store, relayClient, signal, dispatcher);
    }

    /** Stops the dispatcher gracefully, then the listener and the relay client. */
    Dispatcher.Shutdown stop() {
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

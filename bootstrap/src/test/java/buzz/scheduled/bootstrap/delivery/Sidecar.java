package buzz.scheduled.bootstrap.delivery;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal;
import buzz.scheduled.adapters.postgres.PostgresScheduleStore;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.in.DeliveryUseCase;
import buzz.scheduled.application.service.DeliveryService;
import buzz.scheduled.application.service.Dispatcher;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.bootstrap.Poll;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * One sidecar's delivery half wired from the real parts, as bootstrap will wire it: the PostgreSQL store over a
 * pool, the delivery service, the relay client (behind a {@link RecordingPublisher}), the LISTEN signal on its
 * own connection, and the dispatcher.
 */
final class Sidecar implements AutoCloseable {
    final String name;
    final PostgresScheduleStore store;
    final RelayClient relayClient;
    final PostgresDueWorkSignal signal;
    final Dispatcher dispatcher;

    private Sidecar(String name, PostgresScheduleStore store, RelayClient relayClient, PostgresDueWorkSignal signal,
                    Dispatcher dispatcher) {
        this.name = name;
        this.store = store;
        this.relayClient = relayClient;
        this.signal = signal;
        this.dispatcher = dispatcher;
    }

    /**
     * Starts a sidecar.
     *
     * @param pool     its connection pool (a sidecar of its own gets a pool of its own)
     * @param jdbcUrl  where the LISTEN connection goes
     * @param relayUrl the relay
     * @param sends    where every publish is recorded
     * @param wrap     lets a test interfere with the delivery steps (identity for none)
     */
    static Sidecar start(String name, DataSource pool, String jdbcUrl, URI relayUrl, DispatcherSettings settings,
                         Collection<RecordingPublisher.Send> sends, UnaryOperator<DeliveryUseCase> wrap) {
        return start(name, pool, jdbcUrl, RelaySettings.of(relayUrl), settings, sends, wrap);
    }

    /** Like the other, with explicit relay client settings (reconnect backoff). */
    static Sidecar start(String name, DataSource pool, String jdbcUrl, RelaySettings relaySettings,
                         DispatcherSettings settings, Collection<RecordingPublisher.Send> sends,
                         UnaryOperator<DeliveryUseCase> wrap) {
        PostgresScheduleStore store = new PostgresScheduleStore(pool);
        DeliveryUseCase delivery = wrap.apply(new DeliveryService(store, new RelayDecidesAccess(), settings.delivery()));
        Bip340Signer sidecarKey = new Bip340Signer(SecretKey.generate(new SecureRandom()), new SecureRandom());
        RelayClient relayClient = new RelayClient(relaySettings,
                (url, challenge, createdAt) -> sidecarKey.sign(createdAt, 22242,
                        List.of(List.of("relay", url), List.of("challenge", challenge)), ""),
                Instant::now);
        relayClient.connect();
        PostgresDueWorkSignal signal = PostgresDueWorkSignal.listen(DatabaseUrl.parse(jdbcUrl));
        Dispatcher dispatcher = new Dispatcher(delivery, new RecordingPublisher(name, relayClient, store, sends),
                signal, settings);
        dispatcher.start();
        Poll.until("sidecar " + name + " to connect to the relay and LISTEN", Duration.ofSeconds(20),
                () -> relayClient.isConnected() && signal.listening());
        return new Sidecar(name, store, relayClient, signal, dispatcher);
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

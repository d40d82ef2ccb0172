package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.postgres.PostgresDueWorkSignal;
import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.DatabaseAvailability;
import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.Dispatcher;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.database.DatabaseUrls;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.security.SecureRandom;
import java.time.Duration;

/**
 * Binds delivery: the relay client (publishing, NIP-42 AUTH with the sidecar's key), the PostgreSQL
 * {@code LISTEN} wake-up signal and the dispatcher (which follows the database watch: no claims while the database
 * takes no writes). The objects are made here but started and stopped by
 * {@link Sidecar}, which owns their lifecycle.
 */
public final class DeliveryModule extends AbstractModule {

    /** How often the reaper returns expired leases. */
    static final Duration REAP_EVERY = Duration.ofSeconds(5);
    /** The claim loop's pause after a store failure. */
    static final Duration ERROR_PAUSE = Duration.ofSeconds(1);

    @Provides
    @Singleton
    AuthEventSigner authEventSigner(SecretKey sidecarKey) {
        return AuthEventSigner.with(new Bip340Signer(sidecarKey, new SecureRandom()));
    }

    @Provides
    @Singleton
    RelayClient relayClient(SidecarConfig config, AuthEventSigner authSigner, WallClock clock) {
        return new RelayClient(RelaySettings.of(config.relay().url()).withAuthUrl(config.relay().authUrl()),
                authSigner, clock);
    }

    @Provides
    @Singleton
    RelayPublisher relayPublisher(RelayClient client) {
        return client;
    }

    /**
     * {@code LISTEN} on the direct URL: a transaction-mode pooler would drop the session's notifications. The
     * dispatcher sleeps at most the backstop poll, so only rows claimable within it (plus a margin) are notified.
     */
    @Provides
    @Singleton
    PostgresDueWorkSignal dueWorkSignal(DatabaseUrls databaseUrls, SidecarConfig config) {
        return new PostgresDueWorkSignal(PostgresDueWorkSignal.connectorFor(databaseUrls.direct()),
                PostgresDueWorkSignal.ListenSettings.DEFAULT, config.delivery().pollInterval());
    }

    /** The owner side's own changes wake this process's dispatcher through the same signal. */
    @Provides
    @Singleton
    DueWorkNotice dueWorkNotice(PostgresDueWorkSignal signal) {
        return signal;
    }

    @Provides
    @Singleton
    DispatcherSettings dispatcherSettings(SidecarConfig config, DeliverySettings delivery) {
        return new DispatcherSettings(delivery, config.delivery().maxInFlight(), config.delivery().claimBatchSize(),
                DispatcherSettings.DEFAULT_MAX_QUEUED_BYTES, config.delivery().pollInterval(), REAP_EVERY, ERROR_PAUSE);
    }

    @Provides
    @Singleton
    Dispatcher dispatcher(DeliveryStore store, RelayPublisher relay, AccessPolicy access, RelayLimits limits,
                          PostgresDueWorkSignal signal, DeliveryObserver observer, DispatcherSettings settings,
                          DatabaseAvailability database, StoreClock storeClock) {
        DueWorkSignal wakeUps = signal;
        return new Dispatcher(store, relay, access, limits, wakeUps, observer, settings, database, storeClock);
    }
}

package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.relay.Nip11RelayLimits;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;

/**
 * Binds the relay adapter: BIP-340 event signatures (BouncyCastle), the sidecar's own key for NIP-42 AUTH, and
 * the relay's NIP-11 limitation ({@link RelayLimits}, read and refreshed by {@link Nip11RelayLimits}, which
 * {@link Sidecar} starts and closes).
 */
public final class RelayModule extends AbstractModule {

    private final SecretKey sidecarKey;

    /** @param sidecarKey the key read from {@code SIDECAR_SECRET_KEY_FILE} */
    public RelayModule(SecretKey sidecarKey) {
        if (sidecarKey == null) {
            throw new IllegalArgumentException("the relay module needs the sidecar key");
        }
        this.sidecarKey = sidecarKey;
    }

    @Override
    protected void configure() {
        bind(SecretKey.class).toInstance(sidecarKey);
        bind(EventSignatures.class).to(Bip340EventSignatures.class).in(Singleton.class);
    }

    /** {@code RELAY_URL}'s NIP-11 document, read again every {@code BUZZ_RELAY_INFO_REFRESH_SECONDS}. */
    @Provides
    @Singleton
    Nip11RelayLimits relayInformation(SidecarConfig config) {
        return new Nip11RelayLimits(RelaySettings.of(config.relay().url()), config.relay().informationRefresh());
    }

    @Provides
    @Singleton
    RelayLimits relayLimits(Nip11RelayLimits limits) {
        return limits;
    }
}

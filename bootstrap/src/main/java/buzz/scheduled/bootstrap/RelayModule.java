package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.EventSignatures;
import com.google.inject.AbstractModule;
import com.google.inject.Singleton;

/**
 * Binds the relay adapter: BIP-340 event signatures (BouncyCastle) and the sidecar's own key for NIP-42 AUTH.
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
}

package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.http.access.CallbackAccessPolicy;
import buzz.scheduled.adapters.http.access.CallbackSettings;
import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.nip29.GroupFeed;
import buzz.scheduled.adapters.relay.nip29.Nip29AccessPolicy;
import buzz.scheduled.adapters.relay.nip29.Nip29Settings;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.service.DeletionService;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.config.SidecarConfig.AccessPolicyChoice;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.util.Optional;

/**
 * Binds the {@link AccessPolicy} that {@code BUZZ_ACCESS_POLICY} names:
 * <ul>
 *   <li>{@code relay}: {@link RelayDecidesAccess} (admission allows; the relay's answer at publish decides);</li>
 *   <li>{@code http}: the callback policy POSTing to {@code BUZZ_ACCESS_URL} (3 s timeout);</li>
 *   <li>{@code nip29}: the policy over a {@link GroupFeed} that follows the relay's NIP-29 group state on its own
 *       connection to {@code RELAY_URL}, trusting {@code BUZZ_RELAY_PUBKEY} (or the relay's NIP-11 self), paging
 *       the backlog by {@code BUZZ_NIP29_PAGE_SIZE} (or the relay's NIP-11 max_limit),
 *       answering NIP-42 AUTH with the sidecar's key, and carrying out 9008/9001 through the deletion service.</li>
 * </ul>
 * Only the chosen policy's parts are bound: {@link GroupFeed} exists in the graph only for {@code nip29}, and
 * {@link Sidecar} starts and closes it.
 */
public final class AccessModule extends AbstractModule {

    private final AccessPolicyChoice policy;

    /** @param policy the configured {@code BUZZ_ACCESS_POLICY} */
    public AccessModule(AccessPolicyChoice policy) {
        if (policy == null) {
            throw new IllegalArgumentException("the access module needs the configured access policy");
        }
        this.policy = policy;
    }

    @Override
    protected void configure() {
        switch (policy) {
            case RELAY -> bind(AccessPolicy.class).toInstance(new RelayDecidesAccess());
            case HTTP -> install(new CallbackPolicyModule());
            case NIP29 -> install(new Nip29PolicyModule());
        }
    }

    /** {@code BUZZ_ACCESS_POLICY=http}. */
    static final class CallbackPolicyModule extends AbstractModule {
        @Provides
        @Singleton
        AccessPolicy callbackPolicy(SidecarConfig config) {
            // The configuration already refuses policy http without BUZZ_ACCESS_URL.
            return new CallbackAccessPolicy(CallbackSettings.of(config.access().accessUrl().orElseThrow()));
        }
    }

    /** {@code BUZZ_ACCESS_POLICY=nip29}. */
    static final class Nip29PolicyModule extends AbstractModule {
        @Provides
        @Singleton
        GroupFeed groupFeed(SidecarConfig config, EventSignatures signatures, DeletionService deletion,
                            AuthEventSigner authSigner, WallClock clock) {
            RelaySettings relay = RelaySettings.of(config.relay().url()).withAuthUrl(config.relay().authUrl());
            Nip29Settings settings = new Nip29Settings(relay, config.access().relayPubkey(),
                    Nip29Settings.DEFAULT_PING_INTERVAL, config.access().nip29PageSize());
            return new GroupFeed(settings, signatures, deletion, deletion, Optional.of(authSigner), clock);
        }

        @Provides
        @Singleton
        AccessPolicy nip29Policy(GroupFeed feed) {
            return new Nip29AccessPolicy(feed);
        }
    }
}

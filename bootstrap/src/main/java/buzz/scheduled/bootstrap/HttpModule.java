package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.http.HttpApi;
import buzz.scheduled.adapters.http.RelayStatedLimits;
import buzz.scheduled.adapters.http.HttpSettings;
import buzz.scheduled.adapters.http.OwnerApiLimits;
import buzz.scheduled.adapters.http.OperatorAccess;
import buzz.scheduled.adapters.http.OperatorUseCases;
import buzz.scheduled.adapters.http.OwnerUseCases;
import buzz.scheduled.adapters.http.ServerIdentity;
import buzz.scheduled.adapters.http.ReadinessCheck;
import buzz.scheduled.adapters.http.ReadinessCheck.Readiness;
import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.OwnerSettingsUseCase;
import buzz.scheduled.application.port.in.ReservationsUseCase;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.service.AttemptsService;
import buzz.scheduled.application.service.DeletionService;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.service.OperatorActionsService;
import buzz.scheduled.application.service.OperatorViewService;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.metrics.SidecarMeters;
import buzz.scheduled.domain.schedule.AdmissionRules;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;

/**
 * Binds the HTTP adapter: the owner routes over the owner service, the operator routes (reservations, deletion,
 * purges, the operator view) for {@code RELAY_OPERATOR_PUBKEYS}, NIP-98 authentication, readiness and the 503 gate
 * from the database watch, the connection limits ({@code BUZZ_HTTP_*}), the metrics registry behind {@code GET /metrics}, {@code BUZZ_CORS_ORIGINS} and the NIP-11 identity
 * (software URL, version, the sidecar's pubkey).
 */
public final class HttpModule extends AbstractModule {

    @Provides
    @Singleton
    HttpSettings httpSettings(SidecarConfig config) {
        SidecarConfig.OwnerLimits owner = config.ownerLimits();
        return HttpSettings.of(config.scheduledMessages(), config.http().publicBaseUrl(), config.limits().horizon(),
                AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, config.limits().maxPendingPerOwner())
                .withConnections(config.http().connections())
                .withOwnerLimits(new OwnerApiLimits(owner.maxEventBytes(), owner.maxEventTags(),
                        owner.writesPerMinute(), owner.writeBurst(), owner.channelWindowPerOwner(),
                        owner.channelWindowTotal(), SidecarConfig.CHANNEL_WINDOW, owner.listPageMaxBytes()));
    }

    /**
     * Ready while the database watch's last check answered in time and found the database taking writes; answers
     * from memory at once (no statement of its own), so a probe with a short timeout never sees a timeout, even
     * while the database hangs.
     */
    @Provides
    @Singleton
    ReadinessCheck readiness(DatabaseStatusUseCase database) {
        return () -> {
            DatabaseStatusUseCase.DatabaseStatus status = database.databaseStatus();
            String problem = status.problem().orElse("no answer");
            return switch (status.health()) {
                case UP -> new Readiness.Ready();
                case READ_ONLY -> new Readiness.NotReady("the database takes no writes: " + problem);
                case SLOW, DOWN -> new Readiness.NotReady("the database is unreachable: " + problem);
            };
        };
    }

    /**
     * The operator routes always get their use cases, even with no {@code RELAY_OPERATOR_PUBKEYS}: the routes then
     * forbid everyone.
     */
    @Provides
    @Singleton
    OperatorAccess operatorAccess(SidecarConfig config, ReservationsUseCase reservations, DeletionService deletion) {
        return OperatorAccess.of(config.access().operators(), OperatorUseCases.of(reservations, deletion));
    }

    @Provides
    @Singleton
    HttpApi httpApi(OwnerMessagesService owner, OperatorAccess operators, AuthenticateRequestUseCase authentication,
                    ReadinessCheck readiness, HttpSettings settings, SidecarConfig config,
                    PrometheusMeterRegistry registry, OperatorViewService view, SecretKey sidecarKey,
                    DatabaseStatusUseCase database, RelayLimits relayLimits, AttemptsService attempts,
                    OperatorActionsService actions, OwnerSettingsUseCase ownerSettings) {
        return new HttpApi(OwnerUseCases.of(owner), operators, authentication, readiness, settings)
                .meters(registry, () -> SidecarMeters.scrape(registry))
                .cors(config.operations().cors())
                .identity(ServerIdentity.of(Optional.of(sidecarKey.publicKey())))
                .operatorView(view, view)
                .deliveryHistory(attempts, attempts)
                .operatorActions(actions, actions, attempts)
                .reportDatabase(database)
                .relayLimits(() -> {
                    RelayLimits.Limitation relay = relayLimits.current();
                    return new RelayStatedLimits(relay.maxContentLength(), relay.maxMessageLength(),
                            relay.maxEventTags(), relay.minPowDifficulty());
                })
                .ownerSettings(ownerSettings)
                .nostrFeatures(config.nostr().dvm(), config.nostr().notices());
    }
}

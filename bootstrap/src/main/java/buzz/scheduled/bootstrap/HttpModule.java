package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.http.HttpApi;
import buzz.scheduled.adapters.http.HttpSettings;
import buzz.scheduled.adapters.http.OperatorAccess;
import buzz.scheduled.adapters.http.OperatorUseCases;
import buzz.scheduled.adapters.http.OwnerUseCases;
import buzz.scheduled.adapters.http.ServerIdentity;
import buzz.scheduled.adapters.http.ReadinessCheck;
import buzz.scheduled.adapters.http.ReadinessCheck.Readiness;
import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.ReservationsUseCase;
import buzz.scheduled.application.service.DeletionService;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.service.OperatorViewService;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.domain.schedule.AdmissionRules;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import java.sql.Connection;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Binds the HTTP adapter: the owner routes over the owner service, the operator routes (reservations, deletion,
 * purges, the operator view) for {@code RELAY_OPERATOR_PUBKEYS}, NIP-98 authentication, a database readiness
 * check, the metrics registry behind {@code GET /metrics}, {@code BUZZ_CORS_ORIGINS} and the NIP-11 identity
 * (software URL, version, the sidecar's pubkey).
 */
public final class HttpModule extends AbstractModule {

    /** Seconds a connection gets to prove itself for {@code GET /readyz}. */
    static final int READINESS_TIMEOUT_SECONDS = 2;

    @Provides
    @Singleton
    HttpSettings httpSettings(SidecarConfig config) {
        return HttpSettings.of(config.scheduledMessages(), config.http().publicBaseUrl(), config.limits().horizon(),
                AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, config.limits().maxPendingPerOwner());
    }

    @Provides
    @Singleton
    ReadinessCheck readiness(DataSource dataSource) {
        return () -> {
            try (Connection connection = dataSource.getConnection()) {
                return connection.isValid(READINESS_TIMEOUT_SECONDS) ? new Readiness.Ready()
                        : new Readiness.NotReady("the database did not answer within " + READINESS_TIMEOUT_SECONDS + " s");
            } catch (SQLException e) {
                return new Readiness.NotReady("the database did not answer: " + e.getMessage());
            }
        };
    }

    /**
     * The operator routes always get their use cases, even with no {@code RELAY_OPERATOR_PUBKEYS}: the routes then
     * forbid everyone, but {@code GET /metrics} still carries the reservation gauges.
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
                    PrometheusMeterRegistry registry, OperatorViewService view, SecretKey sidecarKey) {
        return new HttpApi(OwnerUseCases.of(owner), operators, authentication, readiness, settings)
                .meters(registry, registry::scrape)
                .cors(config.operations().cors())
                .identity(ServerIdentity.of(Optional.of(sidecarKey.publicKey())))
                .operatorView(view, view);
    }
}

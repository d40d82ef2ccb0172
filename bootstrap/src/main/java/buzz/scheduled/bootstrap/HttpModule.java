package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.http.HttpApi;
import buzz.scheduled.adapters.http.HttpSettings;
import buzz.scheduled.adapters.http.OperatorAccess;
import buzz.scheduled.adapters.http.OperatorUseCases;
import buzz.scheduled.adapters.http.OwnerUseCases;
import buzz.scheduled.adapters.http.ReadinessCheck;
import buzz.scheduled.adapters.http.ReadinessCheck.Readiness;
import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.ReservationsUseCase;
import buzz.scheduled.application.service.DeletionService;
import buzz.scheduled.application.service.Dispatcher;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.domain.schedule.AdmissionRules;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;

/**
 * Binds the HTTP adapter: the owner routes over the owner service, the operator routes (reservations, deletion,
 * purges) for {@code RELAY_OPERATOR_PUBKEYS}, NIP-98 authentication, and readiness from the database watch.
 */
public final class HttpModule extends AbstractModule {

    @Provides
    @Singleton
    HttpSettings httpSettings(SidecarConfig config) {
        return HttpSettings.of(config.scheduledMessages(), config.http().publicBaseUrl(), config.limits().horizon(),
                AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, config.limits().maxPendingPerOwner());
    }

    /**
     * Ready while the database watch's last check answered in time; answers from memory at once, so a probe with a
     * short timeout never sees a timeout, even while the database hangs.
     */
    @Provides
    @Singleton
    ReadinessCheck readiness(DatabaseStatusUseCase database) {
        return () -> {
            DatabaseStatusUseCase.DatabaseStatus status = database.databaseStatus();
            return status.reachable() ? new Readiness.Ready()
                    : new Readiness.NotReady("the database is unreachable: " + status.problem().orElse("no answer"));
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
                    ReadinessCheck readiness, HttpSettings settings, Dispatcher dispatcher,
                    DatabaseStatusUseCase database) {
        return new HttpApi(OwnerUseCases.of(owner), operators, authentication, readiness, settings)
                .reportDelivery(dispatcher)
                .reportDatabase(database);
    }
}

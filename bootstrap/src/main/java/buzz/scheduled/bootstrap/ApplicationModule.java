package buzz.scheduled.bootstrap;

import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.PruneRetentionUseCase;
import buzz.scheduled.application.port.in.ReservationsUseCase;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.ReplayStore;
import buzz.scheduled.application.port.out.ScheduleIdSource;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.application.service.AttemptsService;
import buzz.scheduled.application.service.AuthenticateRequestService;
import buzz.scheduled.application.service.DeletionService;
import buzz.scheduled.application.service.OperatorActionsService;
import buzz.scheduled.application.service.OperatorViewService;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.application.service.ReservationsService;
import buzz.scheduled.application.service.RetentionService;
import buzz.scheduled.application.service.RetentionSettings;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;

/**
 * Builds the application services from the ports. The services carry no framework annotations (the application
 * must not import Guice), so each is made by a provider method here.
 */
public final class ApplicationModule extends AbstractModule {

    @Provides
    @Singleton
    OwnerMessagesService ownerMessages(OwnerMessageQueries queries, MessageAdmission admission,
                                       OwnerMessageChanges changes, EventSignatures signatures, AccessPolicy access,
                                       ScheduleIdSource ids, StoreClock clock, DueWorkNotice dueWork,
                                       SchedulingSettings settings, RelayLimits relayLimits,
                                       OwnerWriteLimiter writes) {
        return new OwnerMessagesService(queries, admission, changes, signatures, access, ids, clock, dueWork, settings,
                relayLimits, writes);
    }

    /**
     * NIP-98's 60 s window is judged on the store's clock (this host's clock corrected by the database watch), like
     * every other time decision: a node whose clock is off does not refuse clients on true time
     * (docs/failure-scenarios.md F31).
     */
    @Provides
    @Singleton
    AuthenticateRequestUseCase authentication(EventSignatures signatures, StoreClock clock, ReplayStore replays) {
        return new AuthenticateRequestService(signatures, clock::now, AuthenticateRequestService.DEFAULT_WINDOW,
                replays);
    }

    /**
     * Channel deletion, member removal and purges (docs/scheduled-messages.md §6): the operator routes and the NIP-29
     * feed call it.
     */
    @Provides
    @Singleton
    DeletionService deletion(ChannelAdministration administration) {
        return new DeletionService(administration);
    }

    @Provides
    @Singleton
    ReservationsUseCase reservations(ChannelAdministration administration) {
        return new ReservationsService(administration);
    }

    @Provides
    @Singleton
    buzz.scheduled.application.port.in.QueueStatsUseCase queueStats(OperatorViewService view) {
        return view;
    }

    @Provides
    @Singleton
    OperatorViewService operatorView(buzz.scheduled.application.port.out.QueueStatistics statistics,
                                     buzz.scheduled.application.port.out.AdminMessageQueries messages,
                                     buzz.scheduled.application.port.out.LinkStatus links) {
        return new OperatorViewService(statistics, messages, links);
    }

    /** An operator's cancel and requeue of one message (the operator console). */
    @Provides
    @Singleton
    OperatorActionsService operatorActions(OwnerMessageQueries queries, OwnerMessageChanges changes, StoreClock clock,
                                           DueWorkNotice dueWork, SchedulingSettings settings, SidecarConfig config) {
        return new OperatorActionsService(queries, changes, clock, dueWork, settings, config.limits().maxLateness());
    }

    @Provides
    @Singleton
    AttemptsService attempts(OwnerMessageQueries owners,
                             buzz.scheduled.application.port.out.AdminMessageQueries operators,
                             buzz.scheduled.application.port.out.AttemptHistory history) {
        return new AttemptsService(owners, operators, history);
    }

    @Provides
    @Singleton
    PruneRetentionUseCase retention(ChannelAdministration administration, RetentionSettings settings) {
        return new RetentionService(administration, settings);
    }
}

package buzz.scheduled.application.port.in.archfixture;

import buzz.scheduled.application.service.OwnerMessagesService;

/** A deliberate violation for ArchitectureRulesTest: a use case that hands its caller the service behind it. */
public interface UseCaseReturningAService {
    /** Leaks the implementing service. */
    OwnerMessagesService service();
}

package buzz.scheduled.adapters.postgres.archfixture;

import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.application.service.DeletionService;

/** A deliberate violation for ArchitectureRulesTest: a PostgreSQL adapter class building an application service. */
public final class PostgresClassUsingAService {
    /** Builds the deletion service itself instead of being handed its port. */
    public DeletionService deletion(ChannelAdministration administration) {
        return new DeletionService(administration);
    }
}

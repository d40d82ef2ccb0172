package buzz.scheduled.application.port.out.archfixture;

import buzz.scheduled.application.service.SchedulingSettings;

/** A deliberate violation for ArchitectureRulesTest: an outbound port whose method speaks of a service's type. */
public interface OutboundPortNamingAService {
    /** Leaks the owner service's settings into the port. */
    SchedulingSettings settings();
}

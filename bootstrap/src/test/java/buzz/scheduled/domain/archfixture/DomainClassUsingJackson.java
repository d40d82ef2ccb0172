package buzz.scheduled.domain.archfixture;

import com.fasterxml.jackson.databind.ObjectMapper;

/** A deliberate violation for ArchitectureRulesTest: a domain class importing Jackson. */
public final class DomainClassUsingJackson {
    /** Parses with Jackson, which the domain must not do. */
    public Object parse(String json) throws Exception {
        return new ObjectMapper().readTree(json);
    }
}

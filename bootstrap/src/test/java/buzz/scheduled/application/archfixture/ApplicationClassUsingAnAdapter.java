package buzz.scheduled.application.archfixture;

import buzz.scheduled.adapters.postgres.DatabaseUrl;

/** A deliberate violation for ArchitectureRulesTest: an application class importing an adapter. */
public final class ApplicationClassUsingAnAdapter {
    /** Parses a database URL with the PostgreSQL adapter's code. */
    public String jdbc(String url) {
        return DatabaseUrl.parse(url).jdbcUrl();
    }
}

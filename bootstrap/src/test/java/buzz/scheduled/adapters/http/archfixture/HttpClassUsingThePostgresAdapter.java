package buzz.scheduled.adapters.http.archfixture;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.jooq.DefaultCatalog;

/** A deliberate violation for ArchitectureRulesTest: an HTTP adapter class using the PostgreSQL adapter and jOOQ. */
public final class HttpClassUsingThePostgresAdapter {
    /** Reaches into another adapter. */
    public String jdbc(String url) {
        return DatabaseUrl.parse(url).jdbcUrl();
    }

    /** Reaches into generated jOOQ classes. */
    public String catalog() {
        return DefaultCatalog.DEFAULT_CATALOG.getName();
    }
}

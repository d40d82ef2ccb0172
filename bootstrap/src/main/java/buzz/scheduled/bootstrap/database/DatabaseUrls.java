package buzz.scheduled.bootstrap.database;

import buzz.scheduled.adapters.postgres.DatabaseUrl;

/**
 * The two ways to the database: {@code pooled} ({@code DATABASE_URL}, which may go through a transaction-mode pooler
 * such as PgBouncer) for the connection pool and the health probe, and {@code direct}
 * ({@code BUZZ_DIRECT_DATABASE_URL}, default the same) for what needs one session of its own: {@code LISTEN} and
 * migrations (Flyway holds a session-level advisory lock while it migrates).
 *
 * @param pooled what the pool connects to; with a separate direct URL it carries {@code prepareThreshold=0} unless
 *               the operator set that property, since a transaction-mode pooler hands each transaction to whichever
 *               server session is free and named server-side prepared statements would clash there
 * @param direct what {@code LISTEN} and migrations connect to
 */
public record DatabaseUrls(DatabaseUrl pooled, DatabaseUrl direct) {

    /** The PgJDBC property that stops named server-side prepared statements when 0. */
    public static final String PREPARE_THRESHOLD = "prepareThreshold";

    public DatabaseUrls {
        if (pooled == null || direct == null) {
            throw new IllegalArgumentException("both database URLs are needed");
        }
    }

    /** One URL for everything (no pooler in between). */
    public static DatabaseUrls same(DatabaseUrl url) {
        return new DatabaseUrls(url, url);
    }

    /**
     * A pooled URL behind a transaction-mode pooler and the direct one: the pooled URL gets {@code prepareThreshold=0}
     * unless it names {@code prepareThreshold} itself.
     */
    public static DatabaseUrls pooledAndDirect(DatabaseUrl pooled, DatabaseUrl direct) {
        return new DatabaseUrls(pooled.withDefaultParameter(PREPARE_THRESHOLD, "0"), direct);
    }

    /** Whether {@code LISTEN} and migrations use a URL of their own. */
    public boolean separateDirect() {
        return !pooled.equals(direct);
    }
}

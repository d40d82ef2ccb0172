package buzz.scheduled.benchmarks.admission;

import java.net.URI;
import java.util.List;
import java.util.OptionalLong;

/**
 * What the admission load is sent to and measured on: the stack wired in this JVM ({@link AdmissionStack}) or a
 * real {@code serve} process ({@link ServeTarget}). Readings are cumulative; the driver takes differences around
 * each round.
 */
interface AdmissionTarget extends AutoCloseable {

    /** Where the API listens, and its {@code PUBLIC_BASE_URL} (the NIP-98 {@code u} tags name it). */
    URI baseUrl();

    /** One line saying what runs: server and database versions, schema, pool, where it listens. */
    String describe();

    /**
     * CPU time of the JVM that serves the API so far, nanoseconds. In process that JVM is also the clients'; a
     * {@code serve} process is the sidecar alone.
     */
    long serverCpuNanos();

    /** CPU time of the database server (or of its backends for this database) so far, nanoseconds. */
    long databaseCpuNanos();

    /** Statements the sidecar's database role has executed so far ({@code pg_stat_statements}), when known. */
    OptionalLong statements();

    /** Rows in {@code scheduled_message}, to check one row per {@code 201}. */
    long storedMessages();

    /** Where the database's time went since the start of the measured levels, per create; empty when unknown. */
    List<String> statementProfile(long creates);

    /** Forgets the statement statistics gathered so far (after the warm-up). */
    void resetStatementProfile();

    @Override
    void close();
}

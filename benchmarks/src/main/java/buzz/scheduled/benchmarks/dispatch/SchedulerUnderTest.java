package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import java.util.List;
import java.util.Map;

/**
 * One side of the comparison: a scheduler on its own scratch database that publishes due events to the loopback
 * relay. The phases drive both sides through the same steps: {@link #insert} (not timed), {@link #connect}, then
 * {@link #start} (the clock starts), {@link #completed} until done, {@link #close}.
 */
interface SchedulerUnderTest extends AutoCloseable {

    /** A short name for the result table ({@code sidecar}, {@code db-scheduler}). */
    String name();

    /** One line on how it is configured. */
    String configuration();

    /** Stores {@code events} as due work, each due at its {@code created_at}; before {@link #start}. */
    void insert(List<DueEvent> events);

    /**
     * Opens the relay connection (and anything else that only has to happen once, like {@code LISTEN}) and waits
     * until it is up, so connecting is not part of the timing.
     *
     * @throws IllegalStateException when the relay does not answer within a few seconds
     */
    void connect();

    /** Starts dispatching. */
    void start();

    /** How many of the inserted events the database records as done (published, or the task row completed). */
    long completed();

    /** Rows by state or outcome at the end, for the report (e.g. {@code published=20000}). */
    Map<String, Long> outcomes();

    /** CPU time of the database's backends so far, nanoseconds (see {@code DatabaseCpu}). */
    long databaseCpuNanos();

    /** Stops dispatching (gracefully, bounded), closes the relay connection and the pool; idempotent. */
    @Override
    void close();
}

package buzz.scheduled.application.port.in;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether the database answers and how far this host's clock is from the database's, as the last periodic check
 * found (for {@code GET /readyz}, {@code GET /metrics} and owner writes during an outage). Answers from memory at
 * once; never waits for the database.
 */
public interface DatabaseStatusUseCase {

    /** The latest status. */
    DatabaseStatus databaseStatus();

    /** How the database answered its checks. */
    enum Health {
        /** The last check answered in time. */
        UP,
        /**
         * A check has been waiting longer than it should (or none ran for a while): not ready, but requests are still
         * tried, since the database may only be slow.
         */
        SLOW,
        /**
         * The database answers but refuses writes (a standby after a failover, {@code default_transaction_read_only}):
         * an outage like {@link #DOWN}, requests are refused at once and delivery claims nothing until it takes writes
         * again.
         */
        READ_ONLY,
        /** The last check failed (refused, timed out, broken connection): requests are refused at once. */
        DOWN
    }

    /**
     * @param health    how the database answered its checks
     * @param problem   why it is not {@link Health#UP} (empty when it is), e.g. "Connection refused" or "the database
     *                  has not answered for 1500 ms"
     * @param since     when the current state began (wall clock)
     * @param clockSkew this host's clock minus the database's (positive: this host is ahead), from the latest answer;
     *                  empty before the first one
     */
    record DatabaseStatus(Health health, Optional<String> problem, Instant since, Optional<Duration> clockSkew) {
        public DatabaseStatus {
            if (health == null || problem == null || since == null || clockSkew == null) {
                throw new IllegalArgumentException("a database status needs a health, a problem option, a start and a"
                        + " skew option");
            }
            if ((health == Health.UP) == problem.isPresent()) {
                throw new IllegalArgumentException("an answering database has no problem, any other has one");
            }
        }

        /** Whether the last check answered in time and found the database taking writes (ready). */
        public boolean reachable() {
            return health == Health.UP;
        }

        /** Whether requests are refused at once ({@link Health#DOWN} or {@link Health#READ_ONLY}). */
        public boolean outage() {
            return health == Health.DOWN || health == Health.READ_ONLY;
        }
    }
}

package buzz.scheduled.application.port.out;

import java.time.Instant;

/**
 * One trivial round trip to the database, for its health and its clock: PostgreSQL's {@code clock_timestamp()} and
 * whether it takes writes, or why it did not answer. Used by one periodic checker only; an implementation may keep a
 * connection of its own between reads (so a read does not wait for the pool) and bounds every read by a short timeout.
 */
public interface DatabaseProbe {

    /** Reads the database's clock now; never throws for an unreachable database (that is a {@link Reading.Failed}). */
    Reading read();

    /**
     * Makes the next {@link #read()} use a new session: the current one may carry settings from before a change
     * (PostgreSQL gives a session its read-only default when it starts). Safe to call from any thread.
     */
    default void renewSession() {
    }

    /** What one read found. */
    sealed interface Reading {
        /** The database answered and takes writes; {@code databaseNow} is its clock when it evaluated the query. */
        record Answered(Instant databaseNow) implements Reading {
            public Answered {
                if (databaseNow == null) {
                    throw new IllegalArgumentException("an answer needs the database's time");
                }
            }
        }

        /**
         * The database answered but refuses writes (SQLSTATE 25006 for any write), for {@code reason}: a hot standby
         * (a failover left this URL on the old primary) or {@code default_transaction_read_only} on. For this
         * process that is an outage; {@code databaseNow} still measures the clock.
         */
        record ReadOnly(Instant databaseNow, String reason) implements Reading {
            public ReadOnly {
                if (databaseNow == null || reason == null || reason.isBlank()) {
                    throw new IllegalArgumentException("a read-only answer needs the database's time and a reason");
                }
            }
        }

        /** The database did not answer, for {@code reason} (e.g. "Connection refused"). */
        record Failed(String reason) implements Reading {
            public Failed {
                if (reason == null || reason.isBlank()) {
                    throw new IllegalArgumentException("a failed read needs a reason");
                }
            }
        }
    }
}

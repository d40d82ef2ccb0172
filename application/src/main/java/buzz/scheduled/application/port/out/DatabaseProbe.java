package buzz.scheduled.application.port.out;

import java.time.Instant;

/**
 * One trivial round trip to the database, for its health and its clock: PostgreSQL's {@code clock_timestamp()},
 * or why it did not answer. Used by one periodic checker only; an implementation may keep a connection of its own
 * between reads (so a read does not wait for the pool) and bounds every read by a short timeout.
 */
public interface DatabaseProbe {

    /** Reads the database's clock now; never throws for an unreachable database (that is a {@link Reading.Failed}). */
    Reading read();

    /** What one read found. */
    sealed interface Reading {
        /** The database answered; {@code databaseNow} is its clock when it evaluated the query. */
        record Answered(Instant databaseNow) implements Reading {
            public Answered {
                if (databaseNow == null) {
                    throw new IllegalArgumentException("an answer needs the database's time");
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

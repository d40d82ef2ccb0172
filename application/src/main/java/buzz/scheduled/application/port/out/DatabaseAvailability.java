package buzz.scheduled.application.port.out;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * What delivery needs of this node's database watch: whether the database takes writes now (while it does not, a
 * read-only or unreachable database, every claim would fail, so claiming pauses), and two ways to spare the watch's
 * own checks, so that an idle node issues about one statement a second in all (docs/benchmarks.md, "Idle cost"):
 * saying that one of delivery's statements was just answered, and handing the watch a periodic statement (the lease
 * reaper) to run in its check slots. Answers from memory.
 */
public interface DatabaseAvailability {

    /** Assumes the database always takes writes and keeps nothing (tests, tools without a watch). */
    DatabaseAvailability ASSUMED = new DatabaseAvailability() {
        @Override
        public boolean takesWrites() {
            return true;
        }

        @Override
        public void answered() {
        }
    };

    /** Whether the last thing known of the database says it answers and takes writes. */
    boolean takesWrites();

    /** One of this process's statements just got the database's answer (a result or a refusal by a rule). */
    void answered();

    /**
     * Runs {@code statement} about every {@code period}, while the database takes writes, in one of the watch's check
     * slots and in place of that check; {@code statement} answers whether the database answered it (if not, the watch
     * checks at once). At most one statement is taken.
     *
     * @return false when nothing is run this way (the caller then schedules {@code statement} itself)
     */
    default boolean runInCheckSlots(Duration period, BooleanSupplier statement) {
        return false;
    }
}

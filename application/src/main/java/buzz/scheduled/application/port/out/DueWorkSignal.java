package buzz.scheduled.application.port.out;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Tells a sleeping dispatcher that work may have become due sooner than it planned (docs/delivery.md
 * "Time"): PostgreSQL {@code LISTEN buzz_scheduled_due} in production, an in-process latch in tests. A
 * notification is sticky: one that arrives while nobody waits makes the next {@link #awaitWork} return at
 * once, so no wake-up is lost between computing the next due time and starting to wait.
 */
public interface DueWorkSignal extends AutoCloseable {

    /**
     * Waits until notified, woken, or {@code max} has passed, whichever is first. Consumes every notification
     * pending when it returns. Never throws for a lost connection: the caller's own deadline (a slow poll)
     * is the backstop.
     *
     * @param max longest wait; zero or negative returns pending notifications without waiting
     * @return what ended the wait
     */
    Wake awaitWork(Duration max);

    /** Ends the current (or next) {@link #awaitWork} at once, as a notification without a time would. */
    void wakeUp();

    /**
     * Whether notifications from other processes arrive right now (PostgreSQL: the {@code LISTEN} connection is up
     * and hears its own test notification). While it is false, only this process's own {@link DueWorkNotice}s and
     * the caller's polling find new work, so a dispatcher should poll fast. Signals fed only from inside the process
     * lose nothing and keep the default, true.
     */
    default boolean listening() {
        return true;
    }

    /**
     * Stops listening and releases the connection; {@link #awaitWork} then waits for its timeout or a
     * {@link #wakeUp}, which keeps working. Idempotent.
     */
    @Override
    void close();

    /** Why {@link #awaitWork} returned. */
    sealed interface Wake {
        /**
         * One or more notifications arrived (or {@link #wakeUp} was called).
         *
         * @param nearest the earliest "not before" time the notifications named, on the store's clock; empty
         *                when any of them named none (a wake-up, a reconnect that may have missed some, an
         *                unreadable payload), which means "recompute"
         */
        record Notified(Optional<Instant> nearest) implements Wake {
            public Notified {
                if (nearest == null) {
                    throw new IllegalArgumentException("nearest must be present or empty, not null");
                }
            }
        }

        /** Nothing arrived within the wait. */
        record TimedOut() implements Wake {
        }
    }
}

package buzz.scheduled.application.port.out;

import java.time.Instant;

/**
 * Tells this process's dispatcher, at once, that a change the owner side just committed makes a message due at a
 * given time (a create, an edit, a send-now). The database's own notification reaches every node, but only while
 * its {@code LISTEN} connection is up; this one reaches the local dispatcher whatever the listener's state.
 */
@FunctionalInterface
public interface DueWorkNotice {

    /** Tells nobody (tests and tools without a dispatcher). */
    DueWorkNotice NONE = dueAt -> {
    };

    /**
     * Work may be due at {@code dueAt} (store clock). Never blocks and never throws; a dispatcher that already
     * plans to wake earlier ignores it.
     */
    void dueAt(Instant dueAt);
}

package buzz.scheduled.adapters.postgres;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pool does with a session PostgreSQL will not serve any more (docs/failure-scenarios.md F27, F28), as
 * HikariCP's {@link SQLExceptionOverride}, which sees every {@link SQLException} of a pooled connection.
 *
 * <p>A session that was ended ({@link Fault#ENDED}: {@code pg_terminate_backend}, a failover, a server timeout) or
 * that is refused writes ({@link Fault#READ_ONLY}, SQLSTATE 25006: a standby, or a read-only default the session got
 * when it started) is evicted, and so is every other session of the pool: such an event hits all of them at once (a
 * failover ends every backend; a read-only default stays with the sessions made while it held), and a request that
 * retried on another old session would meet the same fault. Sessions in use are closed when they come back.
 * {@link #retriedOnce} then runs a store's unit of work once more, on a session made after the eviction. A refused
 * write is also reported ({@link #whenReadOnly}), so the database watch checks at once whether the whole database
 * turned read-only.
 *
 * <p>One line per eviction at INFO, at most one a second (the rest at DEBUG); HikariCP's own per-connection warning
 * with its stack trace is silenced in logback.xml.
 */
public final class SessionFaults implements SQLExceptionOverride {

    /** Why a pooled session cannot be used again. */
    public enum Fault {
        /** The server ended the session or the connection broke; a new session may well work. */
        ENDED,
        /** The session is refused writes (SQLSTATE 25006). */
        READ_ONLY
    }

    private static final Logger LOG = LoggerFactory.getLogger(SessionFaults.class);
    /**
     * SQL states of a session that is gone (PostgreSQL error codes, appendix A): the connection failed or does not
     * exist (08006, 08003, 08000), the session was terminated by an administrator or a server shutdown (57P01), a crash
     * of another backend (57P02), {@code idle_session_timeout} (57P05) or {@code idle_in_transaction_session_timeout}
     * (25P03). Not a failure to connect (08001, 08004, 57P03): a retry would only wait for the pool's timeout.
     */
    private static final Set<String> ENDED_STATES = Set.of("08006", "08003", "08000", "57P01", "57P02", "57P05",
            "25P03");
    private static final String READ_ONLY_STATE = "25006";
    private static final int MAX_CHAIN = 16;
    private static final long LOG_EVERY_NANOS = 1_000_000_000L;

    private volatile HikariDataSource pool;
    private volatile Runnable onReadOnly = () -> { };
    private final AtomicLong nextLogNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong evictions = new AtomicLong();

    /** Handles the faults of {@code pool}'s sessions (call once, right after the pool is made). */
    void attach(HikariDataSource pool) {
        this.pool = pool;
    }

    /** Runs {@code action} (quick, never throwing) whenever a pooled session is refused a write. */
    public void whenReadOnly(Runnable action) {
        if (action == null) {
            throw new IllegalArgumentException("an action is needed");
        }
        this.onReadOnly = action;
    }

    /** How often the pool's sessions were all evicted so far. */
    public long evictions() {
        return evictions.get();
    }

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        Optional<Fault> fault = faultOf(e);
        if (fault.isEmpty()) {
            return Override.CONTINUE_EVICT;
        }
        evictAll(fault.get(), e);
        if (fault.get() == Fault.READ_ONLY) {
            try {
                onReadOnly.run();
            } catch (RuntimeException failed) {
                LOG.debug("reporting a read-only session failed", failed);
            }
        }
        return Override.MUST_EVICT;
    }

    private void evictAll(Fault fault, SQLException cause) {
        HikariDataSource attached = pool;
        HikariPoolMXBean bean = attached == null ? null : attached.getHikariPoolMXBean();
        if (bean != null) {
            bean.softEvictConnections();
        }
        evictions.incrementAndGet();
        long now = System.nanoTime();
        long due = nextLogNanos.get();
        String what = fault == Fault.READ_ONLY ? "was refused a write (the database is read-only for it)"
                : "was ended by the server or lost";
        if (now - due >= 0 && nextLogNanos.compareAndSet(due, now + LOG_EVERY_NANOS)) {
            LOG.info("a pooled database session {} (SQLSTATE {}: {}); every pooled session is replaced and the"
                    + " request retried once on a new one", what, cause.getSQLState(), cause.getMessage());
        } else {
            LOG.debug("a pooled database session {} (SQLSTATE {})", what, cause.getSQLState());
        }
    }

    /**
     * Runs {@code work} (one unit of work of a store: a statement or a transaction) and, when it failed because its
     * pooled session was ended or refused writes, once more: the pool has evicted every old session by then, so the
     * second run has a new one. A second failure is thrown as it is. Safe because every unit of work of the stores is
     * idempotent or compare-and-set: in the rare case that a commit went through and only its answer was lost, the
     * second run finds the first one's result (a create answers as a replay; a compare-and-set reports a lost race;
     * the NIP-98 replay guard refuses that header, which the client then signs anew).
     */
    public static <T> T retriedOnce(Supplier<T> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            if (faultOf(e).isEmpty()) {
                throw e;
            }
            LOG.debug("retrying a unit of work on a new session after {}", e.toString());
            return work.get();
        }
    }

    /** {@link #retriedOnce(Supplier)} for a unit of work that answers nothing. */
    public static void runRetriedOnce(Runnable work) {
        retriedOnce(() -> {
            work.run();
            return Boolean.TRUE;
        });
    }

    /** The fault in {@code failure} or its causes (at most 16 deep), if it is one of a pooled session. */
    public static Optional<Fault> faultOf(Throwable failure) {
        Throwable current = failure;
        for (int depth = 0; current != null && depth < MAX_CHAIN; depth++) {
            if (current instanceof SQLException sql && sql.getSQLState() != null) {
                if (READ_ONLY_STATE.equals(sql.getSQLState())) {
                    return Optional.of(Fault.READ_ONLY);
                }
                if (ENDED_STATES.contains(sql.getSQLState())) {
                    return Optional.of(Fault.ENDED);
                }
            }
            current = current.getCause() == current ? null : current.getCause();
        }
        return Optional.empty();
    }
}

package buzz.scheduled.adapters.http;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * Tells a dependency that cannot serve in time (answer {@code 503} with {@code Retry-After}) from a bug
 * (answer {@code 500}), by the exception's cause chain: timeouts, transient or recoverable SQL errors (HikariCP's
 * pool timeout is a {@link java.sql.SQLTransientConnectionException}), SQL states of class 08 (connection), 53
 * (insufficient resources) and 57P (operator intervention, e.g. shutdown), 25006 (a write refused by a read-only
 * database: a standby after a failover; docs/failure-scenarios.md F27), refused connections and rejected work.
 */
final class UnavailableCauses {
    private static final int MAX_CHAIN = 16;
    /** SQLSTATE read_only_sql_transaction. */
    private static final String READ_ONLY = "25006";

    private UnavailableCauses() {
    }

    /** Whether {@code failure} or one of its causes says "not now" rather than "wrong". */
    static boolean unavailable(Throwable failure) {
        Throwable current = failure;
        for (int depth = 0; current != null && depth < MAX_CHAIN; depth++) {
            if (current instanceof TimeoutException || current instanceof SQLTransientException
                    || current instanceof SQLRecoverableException || current instanceof RejectedExecutionException
                    || current instanceof ConnectException || current instanceof SocketTimeoutException) {
                return true;
            }
            if (current instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || state.startsWith("53") || state.startsWith("57P")
                        || READ_ONLY.equals(state)) {
                    return true;
                }
            }
            current = current.getCause() == current ? null : current.getCause();
        }
        return false;
    }

    /** Whether {@code failure} or one of its causes is a timeout ({@link TimeoutException}, a socket's). */
    static boolean timedOut(Throwable failure) {
        return cause(failure, current -> current instanceof TimeoutException
                || current instanceof SocketTimeoutException).isPresent();
    }

    /** The first of {@code failure} and its causes (at most 16 deep) that passes {@code test}. */
    static Optional<Throwable> cause(Throwable failure, Predicate<Throwable> test) {
        Throwable current = failure;
        for (int depth = 0; current != null && depth < MAX_CHAIN; depth++) {
            if (test.test(current)) {
                return Optional.of(current);
            }
            current = current.getCause() == current ? null : current.getCause();
        }
        return Optional.empty();
    }
}

package buzz.scheduled.application.support;

/**
 * A monotonic clock in nanoseconds, like {@link System#nanoTime()}: a reading has no meaning of its own, only the
 * difference of two readings from the same clock does (compare them as {@code a - b > 0}, never {@code a > b}, so a
 * wrap-around cannot flip the answer). The {@link buzz.scheduled.application.service.Dispatcher} reads its lease and
 * send deadlines from one, so tests can step time instead of waiting for it to pass. It is no port: nothing outside
 * the process is behind it.
 */
@FunctionalInterface
public interface MonotonicClock {
    /** This host's monotonic clock, {@link System#nanoTime()}: what production uses. */
    MonotonicClock SYSTEM = System::nanoTime;

    /** The current reading, in nanoseconds. */
    long nanoTime();
}

package buzz.scheduled.application.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The one way tests of every module wait for a condition: check it, and again after a pause of a tenth of the time
 * waited so far (at least 1 ms, at most {@link #MAX_INTERVAL}), until it holds or a deadline on the monotonic clock
 * passes; then fail with an {@link AssertionError} naming what was awaited. A short wait is noticed within a
 * millisecond or two, a long one (a process starting, a message due in seconds) is not checked more often than
 * every 50 ms. Never a fixed sleep standing in for synchronisation.
 *
 * <pre>{@code
 * Poll.until("publication", Duration.ofSeconds(15), () -> state(id).equals("published"));
 * String item = Poll.until("the item to be published", WAIT, () -> owner.get(id).text(),
 *         text -> text.contains("\"state\":\"published\""));
 * }</pre>
 */
public final class Poll {
    /** How long {@link #until(String, BooleanSupplier)} waits. */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(10);
    /** The longest pause between two checks. */
    public static final Duration MAX_INTERVAL = Duration.ofMillis(50);
    private static final long MIN_PAUSE_NANOS = Duration.ofMillis(1).toNanos();

    private Poll() {
    }

    /** Waits up to {@link #DEFAULT_LIMIT} until {@code condition} holds. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT_LIMIT, condition);
    }

    /**
     * Waits until {@code condition} holds.
     *
     * @throws AssertionError naming {@code what} when {@code limit} passes first, or the thread is interrupted
     */
    public static void until(String what, Duration limit, BooleanSupplier condition) {
        poll(what, limit, condition::getAsBoolean, Boolean::booleanValue, false);
    }

    /**
     * Reads {@code value} until {@code done} accepts what it read, and returns that.
     *
     * @throws AssertionError naming {@code what} and the last value read when {@code limit} passes first, when the
     *                        thread is interrupted, or when reading throws a checked exception (its cause)
     */
    public static <T> T until(String what, Duration limit, Callable<T> value, Predicate<? super T> done) {
        return poll(what, limit, value, done, true);
    }

    private static <T> T poll(String what, Duration limit, Callable<T> value, Predicate<? super T> done,
                              boolean showLast) {
        long started = System.nanoTime();
        long deadline = started + limit.toNanos();
        T last = read(what, value);
        while (!done.test(last)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + limit + " waiting for " + what
                        + (showLast ? "; last: " + last : ""));
            }
            long pauseNanos = Math.clamp((System.nanoTime() - started) / 10, MIN_PAUSE_NANOS,
                    MAX_INTERVAL.toNanos());
            try {
                Thread.sleep(Duration.ofNanos(pauseNanos));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
            last = read(what, value);
        }
        return last;
    }

    private static <T> T read(String what, Callable<T> value) {
        try {
            return value.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError("could not check " + what + ": " + e, e);
        }
    }
}

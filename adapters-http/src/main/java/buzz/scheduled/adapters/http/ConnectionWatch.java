package buzz.scheduled.adapters.http;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@link ConnectionGuard}'s sweep knows of one HTTP connection, and what it decides at each look: keep it, or
 * close it because no whole request head came within the header timeout, or because an answer was not read whole
 * within the body timeout. The sweep reads Jetty's counts of request heads received and answers begun; answers
 * written whole are counted here ({@link #answerWritten()}), because Jetty counts an answer when it begins, and an
 * answer still being written (a client reading a large page slowly, a process stalled between an answer's head and
 * its body) is not a connection waiting for its next request. Times are {@link System#nanoTime()}-style nanoseconds.
 */
final class ConnectionWatch {

    /** What the sweep does with the connection after a look. */
    enum Verdict {
        /** Leave it open. */
        KEEP,
        /** Close it: no whole request head within the header timeout (at open, or after its last answer). */
        CLOSE_HEADER,
        /** Close it: an answer begun more than the body timeout ago is still not written whole. */
        CLOSE_RESPONSE
    }

    /** Where the connection is in its request/answer cycle, as the sweep last saw it. */
    private sealed interface Phase {
        /** Waiting for a request head since {@code since}, after {@code answered} answers. */
        record Waiting(long since, long answered) implements Phase {
        }

        /** A request head arrived; its answer has not begun. */
        record Handling() implements Phase {
        }

        /** An answer began (seen at {@code since}) and is not written whole yet. */
        record Answering(long since) implements Phase {
        }
    }

    private final InetAddress address;
    private final long headerNanos;
    private final long responseNanos;
    private final AtomicLong written = new AtomicLong();
    private Phase phase;
    private volatile boolean closing;

    /**
     * @param address       the remote address, or null when not an IP connection
     * @param openedAt      when the connection opened
     * @param headerNanos   the header timeout
     * @param responseNanos the body timeout, which also bounds writing an answer
     */
    ConnectionWatch(InetAddress address, long openedAt, long headerNanos, long responseNanos) {
        this.address = address;
        this.headerNanos = headerNanos;
        this.responseNanos = responseNanos;
        this.phase = new Phase.Waiting(openedAt, 0);
    }

    /** The remote address, or null. */
    InetAddress address() {
        return address;
    }

    /** Whether the connection is being closed (by the guard or a cap); the sweep then leaves it alone. */
    boolean closing() {
        return closing;
    }

    /** Marks the connection as being closed. */
    void close() {
        closing = true;
    }

    /** One more answer on this connection was written whole. Any thread. */
    void answerWritten() {
        written.incrementAndGet();
    }

    /**
     * One look by the sweep (one thread at a time).
     *
     * @param requests     request heads received so far (Jetty's {@code getMessagesIn()})
     * @param answersBegun answers begun so far (Jetty's {@code getMessagesOut()})
     * @param now          the sweep's time
     */
    Verdict observe(long requests, long answersBegun, long now) {
        if (requests > answersBegun) {
            phase = new Phase.Handling();
            return Verdict.KEEP;
        }
        if (written.get() < answersBegun) {
            if (phase instanceof Phase.Answering answering) {
                return now - answering.since() >= responseNanos ? Verdict.CLOSE_RESPONSE : Verdict.KEEP;
            }
            phase = new Phase.Answering(now);
            return Verdict.KEEP;
        }
        if (phase instanceof Phase.Waiting waiting && waiting.answered() == answersBegun) {
            return now - waiting.since() >= headerNanos ? Verdict.CLOSE_HEADER : Verdict.KEEP;
        }
        phase = new Phase.Waiting(now, answersBegun);
        return Verdict.KEEP;
    }
}

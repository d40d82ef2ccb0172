package buzz.scheduled.adapters.http;

import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The request body cap ({@link HttpSettings#maxBodyBytes()}) and deadline ({@link ConnectionLimits#bodyTimeout()}):
 * a body is read up to the cap and no further, and a declared or actual length over it is answered
 * {@code 413 too_large} with nothing stored. A body that is not whole within the deadline (a client that stalls
 * or drips it) fails with a {@link ClientFault} of {@code 408 request_timeout}; one that ends before its declared
 * length (the client aborted the upload) with a {@link ClientFault} of {@code 400 invalid_request}.
 */
final class BodyCap {
    private static final int CHUNK = 8 * 1024;

    private final HttpSettings settings;

    BodyCap(HttpSettings settings) {
        this.settings = settings;
    }

    /** What reading a body gave. */
    sealed interface Read {
        /** The whole body, at most the cap (empty when none). */
        record Bytes(byte[] body) implements Read {
        }

        /** Over the cap; the rest was left unread. */
        record TooLarge(Answer.Problem problem) implements Read {
        }
    }

    /**
     * The client failed to deliver its body: it stalled past the deadline ({@code 408}) or closed the connection
     * early ({@code 400}). A fault of the client's, not of the server or a dependency: {@link ErrorAnswers} logs it
     * as one WARN line without a stack trace and answers {@link #problem()}.
     */
    static final class ClientFault extends UncheckedIOException {
        private final transient Answer.Problem problem;

        ClientFault(Answer.Problem problem, IOException cause) {
            super(problem.message(), cause);
            this.problem = problem;
        }

        /** The answer to give (408 or 400); its message is also the log line's. */
        Answer.Problem problem() {
            return problem;
        }
    }

    /**
     * Reads at most the cap; a declared ({@code Content-Length}) or actual length over it is refused unread.
     *
     * @throws ClientFault when the body is not whole within the body deadline or ends early
     */
    Read read(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > settings.maxBodyBytes()) {
            return new Read.TooLarge(tooLarge(declared));
        }
        long started = System.nanoTime();
        long deadline = started + settings.connections().bodyTimeout().toNanos();
        Optional<Alarm> alarm = wakeAtDeadline(ctx);
        // Grown as bytes arrive, never sized by the declared length: a client that declares the cap and sends
        // nothing must not make the server hold the cap's worth of heap.
        ByteArrayOutputStream body = new ByteArrayOutputStream(CHUNK);
        try (InputStream in = ctx.req().getInputStream()) {
            byte[] chunk = new byte[CHUNK];
            int limit = settings.maxBodyBytes() + 1;
            while (body.size() < limit) {
                int n = in.read(chunk, 0, Math.min(chunk.length, limit - body.size()));
                if (n < 0) {
                    break;
                }
                body.write(chunk, 0, n);
                if (System.nanoTime() - deadline > 0 && (declared < 0 || body.size() < declared)) {
                    throw new TimeoutException("the body deadline passed");
                }
            }
            if (body.size() > settings.maxBodyBytes()) {
                return new Read.TooLarge(tooLarge(-1));
            }
            return new Read.Bytes(body.toByteArray());
        } catch (IOException e) {
            throw fault(e, body.size(), declared, started);
        } catch (TimeoutException e) {
            throw fault(new IOException(e), body.size(), declared, started);
        } finally {
            alarm.ifPresent(Alarm::cancel);
        }
    }

    /**
     * The {@code 413 too_large} answer.
     *
     * @param declared the body's declared length in bytes, or -1 when it is not known
     */
    Answer.Problem tooLarge(long declared) {
        return new Answer.Problem(413, "too_large", "the request body "
                + (declared >= 0 ? "is " + declared + " bytes; " : "is too large; ")
                + "at most " + settings.maxBodyBytes() + " bytes are read (event content may be up to "
                + settings.maxContentBytes() + " bytes)");
    }

    /**
     * At the deadline, shortens the connection's idle timeout to half the body timeout: a stalled client has sent
     * nothing for about the whole body timeout, so Jetty's own idle-timeout path fails at once the read that waits
     * for the next byte, which ends here as an {@link IOException} caused by a {@link TimeoutException}. Jetty
     * closes an endpoint that stays idle for a second timeout after that, so the timeout must leave the handler
     * time to write its {@code 408} (with 1 ms, a handler thread scheduled late on a loaded machine found the
     * connection closed and the client got no answer); the handle puts the old timeout back. A client that drips
     * bytes is caught by the deadline check after each read instead. Empty when the request is not Jetty's (it
     * always is when served).
     */
    private Optional<Alarm> wakeAtDeadline(Context ctx) {
        ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
        if (request == null) {
            return Optional.empty();
        }
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        Scheduler scheduler = request.getComponents().getScheduler();
        long bodyTimeoutNanos = settings.connections().bodyTimeout().toNanos();
        long original = endPoint.getIdleTimeout();
        long shortened = Math.max(1, TimeUnit.NANOSECONDS.toMillis(bodyTimeoutNanos) / 2);
        Scheduler.Task task = scheduler.schedule(() -> endPoint.setIdleTimeout(shortened), bodyTimeoutNanos,
                TimeUnit.NANOSECONDS);
        return Optional.of(() -> {
            task.cancel();
            endPoint.setIdleTimeout(original);
        });
    }

    /** The deadline's wake-up: {@link #cancel()} stops it and puts the connection's idle timeout back. */
    private interface Alarm {
        void cancel();
    }

    private ClientFault fault(IOException failure, int read, long declared, long started) {
        String length = declared >= 0 ? read + " of " + declared + " bytes" : read + " bytes";
        String after = String.format(java.util.Locale.ROOT, "%.1f s", (System.nanoTime() - started) / 1e9);
        if (UnavailableCauses.timedOut(failure)) {
            return new ClientFault(new Answer.Problem(408, "request_timeout", "the request body did not arrive"
                    + " within " + settings.connections().bodyTimeout().toSeconds() + " s (" + length + " in " + after
                    + "); send it at once after the headers"), failure);
        }
        return new ClientFault(Answer.Problem.invalidRequest("the request body ended early (" + length + " in "
                + after + "): " + LogText.escape(String.valueOf(rootMessage(failure)))), failure);
    }

    private static String rootMessage(Throwable failure) {
        Throwable current = failure;
        for (int depth = 0; current.getCause() != null && current.getCause() != current && depth < 16; depth++) {
            current = current.getCause();
        }
        return current.getClass().getSimpleName() + (current.getMessage() == null ? "" : ": " + current.getMessage());
    }
}

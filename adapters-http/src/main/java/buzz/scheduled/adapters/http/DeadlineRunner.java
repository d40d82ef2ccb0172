package buzz.scheduled.adapters.http;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a route's use case on a virtual thread of its own and gives up after {@link HttpSettings#requestTimeout()}:
 * a store or access policy that cannot answer in time gives {@code 503 unavailable} with {@code Retry-After},
 * never a hung request. A failure of the route is rethrown on the request's thread for {@link ErrorAnswers}. A
 * request's checks that ask the store (the NIP-98 replay guard) run here too, against the same deadline as its
 * route ({@link #within}).
 */
final class DeadlineRunner {
    private final HttpSettings settings;
    private volatile ExecutorService calls;

    DeadlineRunner(HttpSettings settings) {
        this.settings = settings;
    }

    /** What a call under a deadline came to: its value, or the {@code 503} that answers it instead. */
    sealed interface Outcome<T> {
        /** It answered in time. */
        record Done<T>(T value) implements Outcome<T> {
        }

        /** It did not (or the runner is stopped, or the request's thread was interrupted). */
        record Late<T>(Answer.Problem problem) implements Outcome<T> {
        }
    }

    /** Starts the threads the routes run on. */
    synchronized void start() {
        calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("http-call-", 0).factory());
    }

    /** Abandons the calls in flight (they are interrupted); later calls are answered {@code 503}. */
    synchronized void stop() {
        if (calls != null) {
            calls.shutdownNow();
        }
    }

    /**
     * The route's answer, or {@code 503 unavailable} when it took longer than the request timeout, the request's
     * thread was interrupted or the runner is stopped.
     *
     * @throws RuntimeException the route's own failure
     */
    Answer run(Callable<Answer> route) {
        return run(route, System.nanoTime() + settings.requestTimeout().toNanos());
    }

    /**
     * The route's answer, or {@code 503 unavailable} when {@link System#nanoTime()} passes {@code deadline} first (the
     * request's one deadline, shared with the checks that ran before its route).
     *
     * @throws RuntimeException the route's own failure
     */
    Answer run(Callable<Answer> route, long deadline) {
        return switch (within(route, deadline)) {
            case Outcome.Done<Answer> done -> done.value();
            case Outcome.Late<Answer> late -> late.problem();
        };
    }

    /**
     * {@code call}'s value if it comes before {@code deadline} ({@link System#nanoTime()}); else the {@code 503} to
     * answer with (the call is interrupted and abandoned).
     *
     * @throws RuntimeException the call's own failure
     */
    <T> Outcome<T> within(Callable<T> call, long deadline) {
        Future<T> future;
        try {
            future = calls.submit(call);
        } catch (RejectedExecutionException e) {
            return late("the server is shutting down");
        }
        try {
            return new Outcome.Done<>(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            future.cancel(true);
            return late("the store did not answer within " + settings.requestTimeout().toMillis() + " ms; try again"
                    + " (a create retried with the same Idempotency-Key or event is never stored twice)");
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            return late("the request was interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("route failed", cause);
        }
    }

    private <T> Outcome<T> late(String message) {
        return new Outcome.Late<>(Answer.Problem.unavailable(message, settings.retryAfter().toSeconds()));
    }
}

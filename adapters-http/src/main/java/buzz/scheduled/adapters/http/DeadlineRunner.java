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
 * never a hung request. A failure of the route is rethrown on the request's thread for {@link ErrorAnswers}.
 */
final class DeadlineRunner {
    private final HttpSettings settings;
    private volatile ExecutorService calls;

    DeadlineRunner(HttpSettings settings) {
        this.settings = settings;
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
        Future<Answer> future;
        try {
            future = calls.submit(route);
        } catch (RejectedExecutionException e) {
            return Answer.Problem.unavailable("the server is shutting down", settings.retryAfter().toSeconds());
        }
        try {
            return future.get(settings.requestTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            return Answer.Problem.unavailable("the store did not answer within "
                    + settings.requestTimeout().toMillis() + " ms; try again (a create retried with the same "
                    + "Idempotency-Key or event is never stored twice)", settings.retryAfter().toSeconds());
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            return Answer.Problem.unavailable("the request was interrupted", settings.retryAfter().toSeconds());
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
}

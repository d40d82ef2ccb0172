package buzz.scheduled.bootstrap;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * One {@code GET} of a sidecar route on loopback as a probe with a 1 s timeout sees it (a Kubernetes readiness probe,
 * a metrics scraper): the status, the body and how long the answer took. No answer in time is status -1 taking the
 * whole timeout, which fails any bound below it; a refused connection is status -1 too.
 *
 * @param status the HTTP status, or -1 without an answer
 * @param body   the body, or why there was none
 * @param millis how long the answer took
 */
record TimedProbe(int status, String body, long millis) {

    /** The probe's timeout. */
    static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** {@code GET http://127.0.0.1:<port><path>}. */
    static TimedProbe get(int port, String path) {
        long started = System.nanoTime();
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + path)).timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
            return new TimedProbe(response.statusCode(), response.body(), (System.nanoTime() - started) / 1_000_000);
        } catch (HttpTimeoutException e) {
            return new TimedProbe(-1, "timed out", TIMEOUT.toMillis());
        } catch (IOException e) {
            return new TimedProbe(-1, e.toString(), (System.nanoTime() - started) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new TimedProbe(-1, "interrupted", (System.nanoTime() - started) / 1_000_000);
        }
    }
}

package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.testing.Poll;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Health, readiness, metrics, unavailable dependencies and limits on bad input. */
class OperationsRoutesTest {

    @Test
    void healthz_answersUp() {
        try (ApiFixture api = new ApiFixture()) {
            ApiFixture.Reply reply = api.call("GET", "/healthz").send();

            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.json().get("status").asText()).isEqualTo("up");
        }
    }

    @Test
    void readyz_checkReady_answers200() {
        try (ApiFixture api = new ApiFixture()) {
            assertThat(api.call("GET", "/readyz").send().status()).isEqualTo(200);
        }
    }

    @Test
    void readyz_checkNotReady_answers503WithReason() {
        try (ApiFixture api = new ApiFixture(settings -> settings,
                () -> new ReadinessCheck.Readiness.NotReady("database did not answer: connection refused"))) {
            ApiFixture.Reply reply = api.call("GET", "/readyz").send();

            assertThat(reply.status()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("not_ready");
            assertThat(reply.json().get("message").asText()).contains("connection refused");
            assertThat(reply.header("Retry-After")).isEqualTo("2");
        }
    }

    @Test
    void readyz_checkHangs_answers503AfterTheTimeout() {
        CountDownLatch release = new CountDownLatch(1);
        ReadinessCheck hanging = () -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new ReadinessCheck.Readiness.Ready();
        };
        try (ApiFixture api = new ApiFixture(settings -> settings.withRequestTimeout(Duration.ofMillis(300)), hanging)) {
            long started = System.nanoTime();

            ApiFixture.Reply reply = api.call("GET", "/readyz").send();

            assertThat(reply.status()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("not_ready");
            assertThat(reply.json().get("message").asText()).contains("did not answer within 300 ms");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        } finally {
            release.countDown();
        }
    }

    @Test
    void readyz_checkThrows_answers503() {
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> {
            throw new IllegalStateException("pool closed");
        })) {
            ApiFixture.Reply reply = api.call("GET", "/readyz").send();

            assertThat(reply.status()).isEqualTo(503);
            assertThat(reply.json().get("message").asText()).contains("pool closed");
        }
    }

    @Test
    void metrics_countRequestsByRouteTemplateAndStatus() throws InterruptedException {
        try (ApiFixture api = new ApiFixture()) {
            String id = api.create(api.message(ALICE, Duration.ofHours(1))).json().get("id").asText();
            api.call("GET", "/v1/scheduled-messages/" + id).as(ALICE).send();
            api.call("GET", "/v1/scheduled-messages/" + id).send();

            // The request log runs after the answer is sent: wait for the last request to be counted.
            Poll.until("the unauthorized GET to be counted", Duration.ofSeconds(5),
                    () -> api.api.requestCount("GET", "/v1/scheduled-messages/{id}", 401) > 0);
            ApiFixture.Reply reply = api.call("GET", "/metrics").send();

            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.header("Content-Type")).startsWith("text/plain");
            assertThat(reply.text())
                    .contains("buzz_http_server_requests_seconds_count{method=\"POST\",route=\"/v1/scheduled-messages\",status=\"201\"} 1")
                    .contains("buzz_http_server_requests_seconds_count{method=\"GET\",route=\"/v1/scheduled-messages/{id}\",status=\"200\"} 1")
                    .contains("buzz_http_server_requests_seconds_count{method=\"GET\",route=\"/v1/scheduled-messages/{id}\",status=\"401\"} 1")
                    .contains("buzz_http_server_requests_seconds_bucket{method=\"GET\",route=\"/v1/scheduled-messages/{id}\",status=\"401\",le=\"+Inf\"} 1")
                    .contains("buzz_http_refusals_total{code=\"unauthorized\"} 1")
                    .doesNotContain(id);
            assertThat(reply.text().lines().filter(line -> line.startsWith("buzz_http_server_requests_seconds_bucket{"
                    + "method=\"GET\",route=\"/v1/scheduled-messages/{id}\",status=\"401\""))).as("buckets per series")
                    .hasSize(HttpMetrics.BUCKETS.length + 1);
        }
    }

    @Test
    void storePoolTimeout_answers503WithRetryAfterAndStoresNothing() {
        try (ApiFixture api = new ApiFixture()) {
            String id = api.create(api.message(ALICE, Duration.ofHours(1))).json().get("id").asText();
            api.faults.mode(FaultyScheduleStore.Mode.POOL_TIMEOUT);

            ApiFixture.Reply create = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                    .body(envelope(api.message(ALICE, Duration.ofHours(2)))).send();
            ApiFixture.Reply get = api.call("GET", "/v1/scheduled-messages/" + id).as(ALICE).send();
            ApiFixture.Reply list = api.call("GET", "/v1/scheduled-messages").as(ALICE).send();

            for (ApiFixture.Reply reply : java.util.List.of(create, get, list)) {
                assertThat(reply.status()).as(reply.text()).isEqualTo(503);
                assertThat(reply.error()).isEqualTo("unavailable");
                assertThat(reply.header("Retry-After")).isEqualTo("2");
            }
            assertThat(api.store.size()).isEqualTo(1);
        }
    }

    @Test
    void storeHangs_answers503WithinTheRequestTimeoutAndStoresNothing() throws InterruptedException {
        try (ApiFixture api = new ApiFixture(settings -> settings.withRequestTimeout(Duration.ofMillis(500)),
                () -> new ReadinessCheck.Readiness.Ready())) {
            api.faults.mode(FaultyScheduleStore.Mode.HANG);
            long started = System.nanoTime();

            ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                    .body(envelope(api.message(ALICE, Duration.ofHours(1)))).send();

            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(api.faults.awaitHanging(Duration.ofSeconds(1))).isTrue();
            assertThat(reply.status()).as(reply.text()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("unavailable");
            assertThat(reply.header("Retry-After")).isEqualTo("2");
            assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(500)).isLessThan(Duration.ofSeconds(5));
            assertThat(api.store.size()).isZero();
        }
    }

    @Test
    void unknownRoute_answers404NotFoundJson() {
        try (ApiFixture api = new ApiFixture()) {
            ApiFixture.Reply reply = api.call("GET", "/v2/nothing").send();

            assertThat(reply.status()).isEqualTo(404);
            assertThat(reply.error()).isEqualTo("not_found");
            assertThat(reply.json().get("message").asText()).contains("/v2/nothing");
        }
    }

    @Test
    void wrongMethod_answers405Json() {
        try (ApiFixture api = new ApiFixture()) {
            ApiFixture.Reply reply = api.call("PATCH", "/v1/scheduled-messages").as(ALICE).body("{}").send();

            assertThat(reply.status()).isEqualTo(405);
            assertThat(reply.error()).isEqualTo("method_not_allowed");
        }
    }

    @Test
    void oversizedHeaders_answer431Json() {
        try (ApiFixture api = new ApiFixture()) {
            ApiFixture.Reply reply = api.call("GET", "/healthz")
                    .header("X-Padding", "p".repeat(api.settings.maxHeaderBytes() + 1)).send();

            assertThat(reply.status()).isEqualTo(431);
            assertThat(reply.error()).isEqualTo("invalid_request");
            assertThat(reply.json().get("message").asText()).contains(Integer.toString(api.settings.maxHeaderBytes()));
        }
    }
}

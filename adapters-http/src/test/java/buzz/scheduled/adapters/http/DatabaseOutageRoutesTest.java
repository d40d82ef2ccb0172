package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.DatabaseStatus;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.Health;
import buzz.scheduled.application.port.in.ReservationsUseCase;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The API during a database outage, as the database watch reports it: owner writes answer {@code 503} with
 * {@code Retry-After} at once (not after the pool's timeout) and store nothing, {@code /metrics} never waits for the
 * database, and {@code /healthz} fails only for a failure a restart must fix.
 */
class DatabaseOutageRoutesTest {

    private static final DatabaseStatus UP = new DatabaseStatus(Health.UP, Optional.empty(), ApiFixture.START,
            Optional.of(Duration.ofMillis(-1_250)));
    private static final DatabaseStatus DOWN = new DatabaseStatus(Health.DOWN, Optional.of("Connection refused"),
            ApiFixture.START, Optional.of(Duration.ofSeconds(300)));
    private static final DatabaseStatus SLOW = new DatabaseStatus(Health.SLOW,
            Optional.of("the database has not answered for 1500 ms"), ApiFixture.START, Optional.empty());

    private final AtomicReference<DatabaseStatus> status = new AtomicReference<>(UP);
    private final DatabaseStatusUseCase database = status::get;

    @Test
    void ownerWrite_databaseKnownDown_answers503WithRetryAfterAtOnce_andStoresNothing() {
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                built -> built.reportDatabase(database))) {
            // The store hangs like a pool waiting for a dead server; the known outage must not wait for it.
            api.faults.mode(FaultyScheduleStore.Mode.HANG);
            status.set(DOWN);
            long started = System.nanoTime();

            ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                    .body(envelope(api.message(ALICE, Duration.ofHours(1)))).send();

            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(reply.status()).as(reply.text()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("unavailable");
            assertThat(reply.json().get("message").asText()).contains("Connection refused")
                    .contains("nothing was stored");
            assertThat(reply.header("Retry-After")).isEqualTo("2");
            assertThat(took).isLessThan(Duration.ofMillis(500));
            assertThat(api.store.size()).isZero();
        }
    }

    @Test
    void ownerWrite_databaseOnlySlowToAnswerItsCheck_isStillTried() {
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                built -> built.reportDatabase(database))) {
            status.set(SLOW);

            ApiFixture.Reply reply = api.create(api.message(ALICE, Duration.ofHours(1)));

            assertThat(reply.status()).as(reply.text()).isEqualTo(201);
            assertThat(api.call("GET", "/metrics").send().text()).contains("buzz_database_up 0\n")
                    .doesNotContain("\nbuzz_clock_skew_seconds ");
        }
    }

    @Test
    void ownerRequest_databaseKnownDown_unauthenticatedCallerStillGets401() {
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                built -> built.reportDatabase(database))) {
            status.set(DOWN);

            ApiFixture.Reply reply = api.call("GET", "/v1/scheduled-messages").send();

            assertThat(reply.status()).isEqualTo(401);
        }
    }

    @Test
    void metrics_reservationReadHangs_answersWithinASecondWithReservationsDown() {
        CountDownLatch release = new CountDownLatch(1);
        ReservationsUseCase hanging = () -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("released");
        };
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), hanging,
                built -> built.reportDatabase(database))) {
            long started = System.nanoTime();

            ApiFixture.Reply reply = api.call("GET", "/metrics").send();

            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.text()).contains("buzz_reservations_up 0\n").contains("buzz_database_up 1\n")
                    .contains("buzz_clock_skew_seconds -1.250\n");
            assertThat(took).isGreaterThanOrEqualTo(HttpApi.METRICS_DATABASE_WAIT).isLessThan(Duration.ofSeconds(1));
        } finally {
            release.countDown();
        }
    }

    @Test
    void metrics_databaseKnownDown_skipsTheDatabaseFiguresAndSaysSo() {
        CountDownLatch asked = new CountDownLatch(1);
        ReservationsUseCase counting = () -> {
            asked.countDown();
            throw new IllegalStateException("must not be asked");
        };
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), counting,
                built -> built.reportDatabase(database))) {
            status.set(DOWN);
            Instant before = Instant.now();

            ApiFixture.Reply reply = api.call("GET", "/metrics").send();

            assertThat(reply.text()).contains("buzz_reservations_up 0\n").contains("buzz_database_up 0\n")
                    .contains("buzz_clock_skew_seconds 300.000\n");
            assertThat(Duration.between(before, Instant.now())).isLessThan(Duration.ofMillis(500));
            assertThat(asked.getCount()).as("the reservations were not read").isEqualTo(1);
        }
    }

    @Test
    void healthz_healthCheckReportsAFailure_answers503UnhealthyWithTheReason() {
        AtomicReference<Optional<String>> failure = new AtomicReference<>(Optional.empty());
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                built -> built.reportHealth(failure::get))) {
            assertThat(api.call("GET", "/healthz").send().status()).isEqualTo(200);
            failure.set(Optional.of("the embedded PostgreSQL exited 4 times within 10 minutes"));

            ApiFixture.Reply reply = api.call("GET", "/healthz").send();

            assertThat(reply.status()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("unhealthy");
            assertThat(reply.json().get("message").asText()).contains("exited 4 times");
        }
    }
}

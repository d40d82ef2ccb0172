package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.DatabaseStatus;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.Health;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The API during a database outage, as the database watch reports it: owner writes answer {@code 503} with
 * {@code Retry-After} at once (not after the pool's timeout) and store nothing, also while the database is read-only
 * (docs/failure-scenarios.md F27), and a write the store reports refused by a read-only database answers {@code 503},
 * never {@code 500}; {@code /healthz} fails only for a failure a restart must fix. The database gauges of
 * {@code /metrics} are tested with the meters in bootstrap.
 */
class DatabaseOutageRoutesTest {

    private static final DatabaseStatus UP = new DatabaseStatus(Health.UP, Optional.empty(), ApiFixture.START,
            Optional.of(Duration.ofMillis(-1_250)));
    private static final DatabaseStatus DOWN = new DatabaseStatus(Health.DOWN, Optional.of("Connection refused"),
            ApiFixture.START, Optional.of(Duration.ofSeconds(300)));
    private static final DatabaseStatus READ_ONLY = new DatabaseStatus(Health.READ_ONLY,
            Optional.of("the database refuses writes: it is a hot standby (pg_is_in_recovery())"), ApiFixture.START,
            Optional.empty());
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
    void ownerWrite_databaseKnownReadOnly_answers503WithRetryAfterAtOnce_namingIt_andStoresNothing() {
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                built -> built.reportDatabase(database))) {
            status.set(READ_ONLY);

            ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                    .body(envelope(api.message(ALICE, Duration.ofHours(1)))).send();

            assertThat(reply.status()).as(reply.text()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("unavailable");
            assertThat(reply.json().get("message").asText()).contains("takes no writes").contains("hot standby")
                    .contains("nothing was stored");
            assertThat(reply.header("Retry-After")).isEqualTo("2");
            assertThat(api.store.size()).isZero();
        }
    }

    @Test
    void ownerWrite_storeRefusedByAReadOnlyDatabaseBeforeTheWatchKnows_answers503WithRetryAfter_not500() {
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                built -> built.reportDatabase(database))) {
            api.faults.mode(FaultyScheduleStore.Mode.READ_ONLY);

            ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                    .body(envelope(api.message(ALICE, Duration.ofHours(1)))).send();

            assertThat(reply.status()).as(reply.text()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("unavailable");
            assertThat(reply.header("Retry-After")).isEqualTo("2");
        }
    }

    @Test
    void ownerWrite_replayGuardSlowThenStoreHanging_answers503WithinOneRequestTimeoutNotTwo() {
        // F9: the replay guard asks the store too (a pool with no connection to lend makes it wait); it shares the
        // request's one deadline with the route, so the wait is bounded by one request timeout.
        try (ApiFixture api = new ApiFixture(settings -> settings.withRequestTimeout(Duration.ofMillis(1_500)),
                () -> new ReadinessCheck.Readiness.Ready())) {
            api.replays.delay(Duration.ofMillis(1_000));
            api.faults.mode(FaultyScheduleStore.Mode.HANG);
            long started = System.nanoTime();

            ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                    .body(envelope(api.message(ALICE, Duration.ofHours(1)))).send();

            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(reply.status()).as(reply.text()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("unavailable");
            assertThat(reply.header("Retry-After")).isNotNull();
            assertThat(took).as("one request timeout (1.5 s), not the guard's 1 s plus another 1.5 s")
                    .isLessThan(Duration.ofMillis(2_400));
            assertThat(api.store.size()).isZero();
        }
    }

    @Test
    void ownerWrite_replayGuardSlowerThanTheRequestTimeout_answers503AndNeverRunsTheRoute() {
        try (ApiFixture api = new ApiFixture(settings -> settings.withRequestTimeout(Duration.ofMillis(500)),
                () -> new ReadinessCheck.Readiness.Ready())) {
            api.replays.delay(Duration.ofSeconds(3));

            ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                    .body(envelope(api.message(ALICE, Duration.ofHours(1)))).send();

            assertThat(reply.status()).as(reply.text()).isEqualTo(503);
            assertThat(reply.error()).isEqualTo("unavailable");
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

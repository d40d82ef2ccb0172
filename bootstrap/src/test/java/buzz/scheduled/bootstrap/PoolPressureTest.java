package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.FakeRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * F9 (docs/failure-scenarios.md): a pool of 5 connections, 20 publishes in flight (the relay takes them and never
 * answers) and 200 concurrent creates. Delivery holds no connection while it waits for the relay, so the creates
 * are served: every one answers within the request timeout as the server measures it (on a loaded machine the
 * client may wait longer for 200 connections to be accepted), 201 (or 503 with a reason, never a hang), and every
 * 201 is exactly one stored row.
 */
class PoolPressureTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    private static final int IN_FLIGHT = 20;
    /** Frames the relay client writes to a relay before its first answer (SendPace.INITIAL_WINDOW). */
    private static final int FIRST_WINDOW = 16;
    private static final int CREATES = 200;
    private static final int OWNERS = 10;

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void f9_poolOfFive_twentySendsInFlight_twoHundredConcurrentCreates_allAnsweredInTime_noneLost() throws Exception {
        try (FakeRelay silent = FakeRelay.start()) {
            silent.answerEvents(FakeRelay.Answer.silence());
            int port = ServeProcesses.freePort();
            // All 200 creates come from 127.0.0.1: under the default per-address cap (64) the server would close
            // the rest of them as they connect, before they ever wait for the pool, which is not what F9 is about.
            // Each owner sends 20 creates and may retry as many: more than the default write burst (30).
            // The publish timeout is the longest allowed (600 s, lease 660 s): with 30 s a loaded machine took longer
            // than that between the frames' arrival and the last check, three sends timed out and left sending, and
            // the test checked the timeout rather than F9. Nothing here waits for the timeout.
            Process serve = processes.start(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                    "BUZZ_DATA_DIR", work.resolve("var").toString(), "HTTP_PORT", Integer.toString(port),
                    "BUZZ_SCHEDULED_MESSAGES", "on", "BUZZ_DB_POOL_SIZE", "5", "RELAY_URL", silent.url().toString(),
                    "BUZZ_PUBLISH_TIMEOUT_SECONDS", "600", "BUZZ_LEASE_SECONDS", "660",
                    "BUZZ_HTTP_MAX_CONNECTIONS_PER_IP", "256", "BUZZ_OWNER_WRITE_BURST", "100"),
                    work.resolve("serve.log"));
            ServeProcesses.awaitHealthy(serve, port, work.resolve("serve.log"));

            OwnerClient first = new OwnerClient(port);
            // Far enough ahead that twenty creates one after another are all admitted on a loaded machine.
            long soon = Instant.now().plusSeconds(20).getEpochSecond();
            for (int i = 0; i < IN_FLIGHT; i++) {
                OwnerClient.Reply created = first.schedule(first.messageAt("room-" + i % 2, "in flight " + i, soon));
                assertThat(created.status()).as(created.text()).isEqualTo(201);
            }
            // Twenty rows in sending, their frames written or waiting in the relay client: to a relay that has
            // answered nothing the client writes at most 16 frames (its send pace's first window), the other four
            // wait for an answer that never comes. Either way each send holds no pool connection, which is what F9
            // is about. This waits for that state rather than reading the rows once: a fresh-clone run on a loaded
            // machine once found 4 of 20 in sending at that moment. A time-out names the rows by state and frames.
            Poll.until("20 rows in sending, the first 16 frames at the relay, unanswered", Duration.ofSeconds(60),
                    () -> ServeProcesses.query(DATABASE.jdbcUrl(), "SELECT coalesce(string_agg(state || ' ' || n, ', '"
                            + " ORDER BY state), 'none') FROM (SELECT state, count(*) n FROM scheduled_message"
                            + " GROUP BY state) s") + "; EVENT frames at the relay: " + silent.received("EVENT").size(),
                    states -> states.startsWith("sending " + IN_FLIGHT + ";")
                            && silent.received("EVENT").size() >= FIRST_WINDOW);

            List<OwnerClient> owners = new ArrayList<>();
            for (int i = 0; i < OWNERS; i++) {
                owners.add(new OwnerClient(port));
            }
            long later = Instant.now().plusSeconds(3_600).getEpochSecond();
            List<NostrEvent> events = new ArrayList<>();
            for (int i = 0; i < CREATES; i++) {
                events.add(owners.get(i % OWNERS).messageAt("busy-" + i % 10, "create " + i, later));
            }
            long started = System.nanoTime();
            List<Timed> answers = new ArrayList<>();
            try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Timed>> pending = new ArrayList<>();
                for (int i = 0; i < CREATES; i++) {
                    OwnerClient owner = owners.get(i % OWNERS);
                    NostrEvent event = events.get(i);
                    pending.add(clients.submit(() -> {
                        long at = System.nanoTime();
                        OwnerClient.Reply reply = owner.schedule(event);
                        return new Timed(reply, (System.nanoTime() - at) / 1_000_000);
                    }));
                }
                for (Future<Timed> answer : pending) {
                    answers.add(answer.get());
                }
            }
            List<OwnerClient.Reply> replies = answers.stream().map(Timed::reply).toList();
            long took = (System.nanoTime() - started) / 1_000_000;
            Map<Integer, Long> statuses = replies.stream()
                    .collect(Collectors.groupingBy(OwnerClient.Reply::status, Collectors.counting()));
            long slowest = answers.stream().mapToLong(Timed::millis).max().orElseThrow();
            System.out.printf("F9: %d creates with %d sends in flight on a pool of 5: %s in %d ms, slowest %d ms%n",
                    CREATES, IN_FLIGHT, statuses, took, slowest);

            assertThat(statuses.keySet()).as("only created or a clean 503").isSubsetOf(201, 503);
            assertThat(replies.stream().filter(reply -> reply.status() == 503))
                    .allSatisfy(reply -> assertThat(reply.json().get("error").asText()).isEqualTo("unavailable"));
            // The server's own measure, from the request's arrival to its answer: a loaded machine may be slow to
            // accept 200 connections at once, which is the client's wait, not the server's.
            String metrics = ServeProcesses.metrics(port);
            String creates = "buzz_http_server_requests_seconds_bucket{method=\"POST\","
                    + "route=\"/v1/scheduled-messages\",";
            String counts = metrics.lines().filter(line -> line.contains("_count{method=\"POST\""))
                    .collect(Collectors.joining("\n"));
            assertThat(bucket(metrics, creates, "11.0")).as("creates the server answered within the request timeout"
                    + " (10 s) and a second:\n" + counts)
                    .isEqualTo(bucket(metrics, creates, "+Inf")).isEqualTo(IN_FLIGHT + CREATES);
            assertThat(slowest).as("no create hung, as the client saw it, ms").isLessThan(30_000);
            assertThat(statuses.getOrDefault(201, 0L)).as("creates served while sends wait for the relay")
                    .isPositive();
            long created = statuses.getOrDefault(201, 0L);
            long stored = count("SELECT count(*) FROM scheduled_message");
            // A 503 at the deadline abandons a create that may still commit (the answer says to retry): every 201 is
            // stored, and at most each 503 besides.
            assertThat(stored).as("every 201 stored, plus those in flight, plus at most the 503s that committed late")
                    .isBetween(IN_FLIGHT + created, IN_FLIGHT + created + statuses.getOrDefault(503, 0L));
            // Retried as the 503 says, each refused create is stored exactly once: 201 when the first try was not
            // stored, 200 (the same item) when it committed after its deadline.
            int replayed = 0;
            for (int i = 0; i < CREATES; i++) {
                if (replies.get(i).status() == 503) {
                    OwnerClient.Reply again = owners.get(i % OWNERS).schedule(events.get(i));
                    assertThat(again.status()).as(again.text()).isIn(200, 201);
                    replayed += again.status() == 200 ? 1 : 0;
                }
            }
            System.out.printf("F9: %d of the 503s had committed after their deadline (answered 200 on retry)%n",
                    replayed);
            assertThat(replayed).isEqualTo(stored - IN_FLIGHT - created);
            assertThat(count("SELECT count(*) FROM scheduled_message")).as("every create stored exactly once")
                    .isEqualTo(IN_FLIGHT + CREATES);
            assertThat(count("SELECT count(*) FROM scheduled_message WHERE state = 'sending'"))
                    .as("the sends still wait for the relay").isEqualTo(IN_FLIGHT);
        }
    }

    private record Timed(OwnerClient.Reply reply, long millis) {
    }

    /** The sum over statuses of one histogram bucket of the POST creates. */
    private static long bucket(String metrics, String prefix, String le) {
        return metrics.lines().filter(line -> line.startsWith(prefix) && line.contains("le=\"" + le + "\""))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private static long count(String sql) throws Exception {
        return Long.parseLong(ServeProcesses.query(DATABASE.jdbcUrl(), sql));
    }
}

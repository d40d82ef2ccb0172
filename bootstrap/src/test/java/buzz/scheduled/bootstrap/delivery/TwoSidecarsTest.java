package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.PoolSettings;
import buzz.scheduled.adapters.postgres.PostgresDataSources;
import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.schedule.Channel;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/failure-scenarios.md F11 with real PostgreSQL and the real test relay: two sidecars (each its own pool,
 * listener, relay connection and dispatcher) on one database, 10 000 messages due now
 * ({@code -Dbuzz.test.f11.messages=N} to change). Expected: 10 000 distinct event ids at the relay, nothing left
 * unpublished, and no item published twice by the happy path (each event handed to the relay exactly once).
 */
class TwoSidecarsTest {
    private static final int MESSAGES = Integer.getInteger("buzz.test.f11.messages", 10_000);
    private static final int AUTHORS = 100;
    private static final Pattern EVENT_ID = Pattern.compile("\"id\":\"([0-9a-f]{64})\"");

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static TestRelay relay;

    @BeforeAll
    static void startRelay() {
        relay = TestRelay.start();
    }

    @AfterAll
    static void stopRelay() {
        relay.close();
    }

    @Test
    void f11_twoSidecarsOneDatabase_messagesDueNow_eachPublishedExactlyOnce_nothingLeft() throws Exception {
        // Many authors in many channels: creates of one owner or one channel queue behind each other (the
        // limit checks lock them), which would make setting up 10 000 messages slow.
        List<Authors> authors = IntStream.range(0, AUTHORS)
                .mapToObj(i -> new Authors(new Channel("room-" + i))).toList();
        PostgresOwnerMessages setup = new PostgresOwnerMessages(db.dataSource());
        Instant due = setup.now().truncatedTo(ChronoUnit.SECONDS);
        try (ExecutorService creators = Executors.newFixedThreadPool(8)) {
            List<Future<?>> created = IntStream.range(0, MESSAGES)
                    .mapToObj(i -> creators.submit(() -> Authors.schedule(setup,
                            authors.get(i % AUTHORS).message(due, "F11 #" + i))))
                    .<Future<?>>map(f -> f)
                    .toList();
            for (Future<?> future : created) {
                future.get();
            }
        }
        ConcurrentLinkedQueue<RecordingPublisher.Send> sends = new ConcurrentLinkedQueue<>();

        try (HikariDataSource poolA = pool("sidecar-a"); HikariDataSource poolB = pool("sidecar-b")) {
            long started = System.nanoTime();
            DeliveryNode a = DeliveryNode.on(poolA, db.jdbcUrl(), relay.url()).named("a").recording(sends).start();
            DeliveryNode b = DeliveryNode.on(poolB, db.jdbcUrl(), relay.url()).named("b").recording(sends).start();
            try {
                Poll.until("all " + MESSAGES + " published", Duration.ofMinutes(10),
                        () -> countByState().getOrDefault("published", 0L) == MESSAGES);
            } finally {
                a.stop();
                b.stop();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            long byA = a.dispatcher.counts().published();
            long byB = b.dispatcher.counts().published();
            System.out.printf("F11: %d messages published by two sidecars in %d ms (a %d, b %d)%n",
                    MESSAGES, took.toMillis(), byA, byB);

            assertThat(countByState()).isEqualTo(Map.of("published", (long) MESSAGES));
            // A frame whose send deadline passed before it reached the socket (a relay connection slow to open on
            // a loaded machine) is answered not-sent and never reached the relay; its claim is given back and
            // claimed again. Every other answer is a frame the relay received.
            List<RecordingPublisher.Send> notSent = sends.stream()
                    .filter(send -> send.result() instanceof PublishResult.NotSent).toList();
            System.out.printf("F11: %d frames not sent before their deadline (claimed again)%n", notSent.size());
            List<RecordingPublisher.Send> handedToTheRelay = sends.stream()
                    .filter(send -> !(send.result() instanceof PublishResult.NotSent)).toList();
            Map<String, List<RecordingPublisher.Send>> perEvent = handedToTheRelay.stream()
                    .collect(Collectors.groupingBy(send -> send.eventId().hex()));
            assertThat(perEvent).hasSize(MESSAGES);
            // One frame per event, published, no relay duplicate: no message was claimed by both. The one allowed
            // exception is the at-least-once resend: a frame whose connection was lost before the relay answered, or
            // that the relay answered neither within the publish timeout nor when asked for it (an unknown outcome,
            // answered transient; seen when the Node relay fell minutes behind on a loaded machine), is sent again,
            // by either node, after its retry time; the relay then keeps one event.
            long resent = perEvent.values().stream().filter(frames -> frames.size() > 1).count();
            System.out.printf("F11: %d events sent again after their connection was lost before the answer%n", resent);
            assertThat(perEvent.entrySet()).allSatisfy(entry -> {
                List<RecordingPublisher.Send> frames = entry.getValue().stream()
                        .sorted(java.util.Comparator.comparing(RecordingPublisher.Send::sentAt)).toList();
                RecordingPublisher.Send last = frames.get(frames.size() - 1);
                assertThat(last.result()).as("the last frame of %s: %s", entry.getKey(), frames)
                        .isInstanceOf(PublishResult.Published.class);
                assertThat(frames.subList(0, frames.size() - 1)).as("earlier frames of %s", entry.getKey())
                        .allSatisfy(earlier -> assertThat(earlier.result()).isInstanceOfSatisfying(
                                PublishResult.Transient.class, lost -> assertThat(lost.reason())
                                        .matches("(dropped|timeout): .*")));
                if (frames.size() == 1) {
                    assertThat(last.duplicate()).as("a relay duplicate of %s, sent once", entry.getKey()).isFalse();
                }
                assertThat(frames).allSatisfy(send -> assertThat(send.sentAt()).isAfterOrEqualTo(send.dueAt()));
            });
            assertThat(byA + byB).isEqualTo(MESSAGES);
            assertThat(byA).isPositive();
            assertThat(byB).isPositive();
            assertThat(a.dispatcher.counts().reaped() + b.dispatcher.counts().reaped()).isZero();
            Set<String> atRelay = idsAtRelay(authors);
            assertThat(atRelay).hasSize(MESSAGES).isEqualTo(perEvent.keySet());
        }
    }

    private static HikariDataSource pool(String name) {
        return PostgresDataSources.create(DatabaseUrl.parse(db.jdbcUrl()),
                new PoolSettings(8, Duration.ofSeconds(10), name));
    }

    private static Map<String, Long> countByState() {
        Map<String, Long> counts = new HashMap<>();
        try (Connection connection = db.dataSource().getConnection();
             Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT state, count(*) FROM scheduled_message GROUP BY state")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return counts;
    }

    private static Set<String> idsAtRelay(List<Authors> authors) {
        String pubkeys = authors.stream().map(a -> "\"" + a.pubkey() + "\"").collect(Collectors.joining(","));
        List<String> events = relay.events("{\"authors\":[" + pubkeys + "]}");
        return events.stream().map(json -> {
            Matcher matcher = EVENT_ID.matcher(json);
            if (!matcher.find()) {
                throw new AssertionError("no id in " + json);
            }
            return matcher.group(1);
        }).collect(Collectors.toSet());
    }
}

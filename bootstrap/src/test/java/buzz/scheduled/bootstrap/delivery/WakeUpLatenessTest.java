package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/failure-scenarios.md F3 with real PostgreSQL (LISTEN/NOTIFY), the real dispatcher and the real test relay: an
 * idle sidecar, then 100 messages due at random instants over a window (60 s as the scenario says; set
 * {@code -Dbuzz.test.f3.windowSeconds=N} to shorten it). None may be sent before its due time by the
 * database clock, and the 99th percentile of lateness must be at most 1 s.
 */
class WakeUpLatenessTest {
    private static final int WINDOW_SECONDS = Integer.getInteger("buzz.test.f3.windowSeconds", 60);
    private static final int MESSAGES = 100;
    private static final int SETUP_SECONDS = 5;

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
    void f3_idleSidecar_messagesDueAtRandomInstants_noneEarly_p99LatenessAtMostOneSecond() throws Exception {
        List<RecordingPublisher.Send> sends = new CopyOnWriteArrayList<>();
        List<Authors> authors = IntStream.range(0, 10).mapToObj(i -> new Authors(new Channel("f3-" + i))).toList();
        long seed = new Random().nextLong();
        Random random = new Random(seed);

        try (DeliveryNode sidecar = DeliveryNode.on(db.dataSource(), db.jdbcUrl(), relay.url()).named("idle")
                .recording(sends).start()) {
            sidecar.warmUp();
            // Every message must be stored before the window opens, or its "lateness" would measure the test's
            // own setup: sign first, then store from a few threads (ten owners in ten channels, so the creates
            // do not queue behind one another's limit locks).
            Instant base = sidecar.store.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(SETUP_SECONDS);
            List<NostrEvent> events = new ArrayList<>();
            for (int i = 0; i < MESSAGES; i++) {
                Instant due = base.plusSeconds(random.nextInt(WINDOW_SECONDS));
                events.add(authors.get(i % authors.size()).message(due, "F3 #" + i + " due " + due));
            }
            try (ExecutorService creators = Executors.newFixedThreadPool(4)) {
                for (Future<?> created : creators.invokeAll(events.stream()
                        .map(event -> (Callable<Object>) () -> Authors.schedule(sidecar.store, event)).toList())) {
                    created.get();
                }
            }
            assertThat(sidecar.store.now()).as("all messages stored before the first is due").isBefore(base);

            Poll.until(MESSAGES + " publications", Duration.ofSeconds(WINDOW_SECONDS + 60L),
                    () -> sends.stream().map(RecordingPublisher.Send::eventId).distinct().count() == MESSAGES);

            Map<EventId, RecordingPublisher.Send> first = new LinkedHashMap<>();
            sends.forEach(send -> first.putIfAbsent(send.eventId(), send));
            assertThat(sends).as("seed %d", seed)
                    .allSatisfy(send -> assertThat(send.sentAt()).isAfterOrEqualTo(send.dueAt()));
            List<Duration> lateness = new ArrayList<>(first.values().stream().map(RecordingPublisher.Send::lateness)
                    .toList());
            Collections.sort(lateness);
            Duration p50 = lateness.get(lateness.size() / 2 - 1);
            Duration p99 = lateness.get((int) Math.ceil(lateness.size() * 0.99) - 1);
            System.out.printf("F3: %d messages over %d s, lateness p50 %d ms, p99 %d ms, max %d ms (seed %d)%n",
                    MESSAGES, WINDOW_SECONDS, p50.toMillis(), p99.toMillis(), lateness.getLast().toMillis(), seed);
            assertThat(p99).as("p99 lateness, seed %d", seed).isLessThanOrEqualTo(Duration.ofSeconds(1));
            assertThat(sends).hasSize(MESSAGES);
            String pubkeys = authors.stream().map(a -> "\"" + a.pubkey() + "\"").collect(Collectors.joining(","));
            assertThat(relay.events("{\"authors\":[" + pubkeys + "]}")).hasSize(MESSAGES);
        }
    }
}

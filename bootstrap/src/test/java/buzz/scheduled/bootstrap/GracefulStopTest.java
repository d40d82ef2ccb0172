package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/failure-scenarios.md F40: a graceful stop of one of two sidecars on one database hands over what it holds
 * without making the other wait for leases. Claims whose {@code http} access check is still under way are given back
 * at once, not after the check; claims whose frames were written and not answered when the grace ends are given back
 * at exit, marked so that the other sidecar asks the relay for each event first (it finds them there and sends
 * nothing again), instead of waiting a whole lease plus the reaper's grace.
 */
class GracefulStopTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    private static final int MESSAGES = 20;

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @BeforeEach
    void emptyTables() {
        DATABASE.execute("DO $$ BEGIN IF to_regclass('scheduled_message') IS NOT NULL THEN"
                + " TRUNCATE scheduled_message CASCADE; END IF; END $$");
    }

    @Test
    void sigtermWhileHttpAccessChecksAreUnderWay_theirClaimsAreGivenBackAtOnce_andTheOtherSidecarPublishesThem()
            throws Exception {
        AtomicBoolean hang = new AtomicBoolean();
        AtomicInteger hanging = new AtomicInteger();
        CountDownLatch over = new CountDownLatch(1);
        HttpServer callback = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        callback.createContext("/access", exchange -> {
            exchange.getRequestBody().readAllBytes();
            if (hang.get()) {
                hanging.incrementAndGet();
                try {
                    over.await(10, TimeUnit.SECONDS); // far past the policy's 3 s timeout
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] allowed = "{\"allowed\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, allowed.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(allowed);
            }
        });
        callback.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        callback.start();
        try (TestRelay relay = TestRelay.start();
             LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"kinds\":[9]}")) {
            int firstPort = ServeProcesses.freePort();
            Map<String, String> first = environment("first", firstPort, relay);
            first.put("BUZZ_ACCESS_POLICY", "http");
            first.put("BUZZ_ACCESS_URL", "http://127.0.0.1:" + callback.getAddress().getPort() + "/access");
            Process firstSidecar = processes.start(first, work.resolve("first.log"));
            ServeProcesses.awaitHealthy(firstSidecar, firstPort, work.resolve("first.log"));
            List<NostrEvent> events = scheduleDueSoon(new OwnerClient(firstPort), MESSAGES);
            hang.set(true); // admission was answered; the checks before delivery are not

            Poll.until("the first sidecar to ask about every message at delivery", Duration.ofSeconds(90),
                    () -> hanging.get() >= MESSAGES);
            long stopped = System.nanoTime();
            firstSidecar.destroy(); // SIGTERM while the checks are under way
            assertThat(firstSidecar.waitFor(30, TimeUnit.SECONDS)).as("the first sidecar exits").isTrue();
            Duration exited = Duration.ofNanos(System.nanoTime() - stopped);
            int secondPort = ServeProcesses.freePort();
            Process secondSidecar = processes.start(environment("second", secondPort, relay),
                    work.resolve("second.log"));
            ServeProcesses.awaitHealthy(secondSidecar, secondPort, work.resolve("second.log"));
            List<LiveEvents.Arrival> arrivals = live.await(MESSAGES, Duration.ofSeconds(60));
            over.countDown();

            System.out.printf("F40: SIGTERM with %d access checks under way: the first sidecar exited after %d ms%n",
                    MESSAGES, exited.toMillis());
            assertThat(givenBack(work.resolve("first.log"))).as("every claim given back at the stop, not retried"
                    + " after its check").isEqualTo(MESSAGES);
            assertThat(arrivals).extracting(LiveEvents.Arrival::eventId)
                    .containsExactlyInAnyOrderElementsOf(events.stream().map(e -> e.id().hex()).toList());
            assertThat(count("SELECT count(*) FROM scheduled_message WHERE last_error LIKE 'access policy%'"))
                    .as("no claim waited for its check to time out").isZero();
        } finally {
            over.countDown();
            callback.stop(0);
        }
    }

    @Test
    void sigtermWithFramesWrittenAndUnanswered_givenBackAtTheEndOfTheGrace_theOtherSidecarFindsThemUnsentAgain()
            throws Exception {
        // The relay stores every event and loses the first OK of each: the first sidecar's frames stay unanswered.
        // Fewer messages than the relay client's first window of unanswered frames (16), so all are written at once.
        int messages = 12;
        try (TestRelay relay = TestRelay.builder().mode("--lose-first-ok").logReceived().start()) {
            int firstPort = ServeProcesses.freePort();
            Map<String, String> first = environment("first", firstPort, relay);
            // The grace (2 s) ends long before the first sidecar would ask the relay about its frames itself.
            first.put("BUZZ_PUBLISH_TIMEOUT_SECONDS", "50");
            Process firstSidecar = processes.start(first, work.resolve("first.log"));
            ServeProcesses.awaitHealthy(firstSidecar, firstPort, work.resolve("first.log"));
            List<String> ids = scheduleDueSoon(new OwnerClient(firstPort), messages).stream()
                    .map(e -> e.id().hex()).toList();
            Poll.until("every frame at the relay", Duration.ofSeconds(90), () -> relay.receivedEvents().stream()
                    .map(TestRelay.ReceivedEvent::id).distinct().filter(ids::contains).count() == messages);
            // Only now the second: it cannot claim what the first holds, and takes over at the first's exit.
            int secondPort = ServeProcesses.freePort();
            Process secondSidecar = processes.start(environment("second", secondPort, relay),
                    work.resolve("second.log"));
            ServeProcesses.awaitHealthy(secondSidecar, secondPort, work.resolve("second.log"));
            long held = count("SELECT count(*) FROM scheduled_message WHERE state = 'sending'");

            long stopped = System.nanoTime();
            firstSidecar.destroy();
            assertThat(firstSidecar.waitFor(30, TimeUnit.SECONDS)).as("the first sidecar exits").isTrue();
            Duration exited = Duration.ofNanos(System.nanoTime() - stopped);
            Poll.until("every message published", Duration.ofSeconds(30), () -> published() == messages);
            Duration handedOver = Duration.ofNanos(System.nanoTime() - stopped);

            System.out.printf("F40: %d frames unanswered at SIGTERM: the first sidecar exited after %d ms (grace"
                    + " 2 s); all published %d ms after SIGTERM, %d ms after it exited%n", held, exited.toMillis(),
                    handedOver.toMillis(), handedOver.minus(exited).toMillis());
            assertThat(held).as("the first sidecar held every message at SIGTERM").isEqualTo(messages);
            Matcher line = Pattern.compile("(\\d+) unanswered send\\(s\\) given back to be asked about")
                    .matcher(ServeProcesses.output(work.resolve("first.log")));
            assertThat(line.find()).as("the first sidecar says what it gave back").isTrue();
            assertThat(Integer.parseInt(line.group(1))).isEqualTo(messages);
            assertThat(relay.receivedEvents()).extracting(TestRelay.ReceivedEvent::id).filteredOn(ids::contains)
                    .as("found at the relay by the second sidecar, never sent again").hasSize(messages);
            assertThat(handedOver.minus(exited)).as("far sooner than the 60 s lease plus the reaper's grace")
                    .isLessThan(Duration.ofSeconds(15));
        }
    }

    /**
     * Schedules {@code count} messages due together through {@code owner}, 30 s ahead: creates took over half a second
     * each on a machine shared with other builds.
     */
    private static List<NostrEvent> scheduleDueSoon(OwnerClient owner, int count) throws Exception {
        long due = Instant.now().plusSeconds(30).getEpochSecond();
        List<NostrEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            NostrEvent event = owner.messageAt("general", "graceful " + i, due);
            OwnerClient.Reply created = owner.schedule(event);
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            events.add(event);
        }
        return events;
    }

    private static int givenBack(Path log) {
        Matcher line = Pattern.compile("dispatcher stopped: (\\d+) claim\\(s\\) given back")
                .matcher(ServeProcesses.output(log));
        assertThat(line.find()).as("the sidecar says what it gave back").isTrue();
        return Integer.parseInt(line.group(1));
    }

    private Map<String, String> environment(String name, int httpPort, TestRelay relay) {
        return new HashMap<>(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                "BUZZ_DATA_DIR", work.resolve(name).toString(), "HTTP_PORT", Integer.toString(httpPort),
                "BUZZ_SCHEDULED_MESSAGES", "on", "BUZZ_SHUTDOWN_GRACE_SECONDS", "2", "RELAY_URL",
                relay.url().toString(), "BUZZ_OWNER_WRITE_BURST", "1000"));
    }

    private static long published() {
        try {
            return count("SELECT count(*) FROM scheduled_message WHERE state = 'published'");
        } catch (java.sql.SQLException e) {
            return -1;
        }
    }

    private static long count(String sql) throws java.sql.SQLException {
        return Long.parseLong(ServeProcesses.query(DATABASE.jdbcUrl(), sql));
    }
}

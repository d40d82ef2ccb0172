package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful stop hands its unsent claims over at once (docs/delivery.md, "Recovery"): a sidecar claims 50 messages
 * whose frames it cannot write (its relay cannot be reached); a second sidecar on the same database, with a working
 * relay, cannot take them while they are held. SIGTERM to the first while it holds every message not yet published
 * gives them back on its way out, and the second publishes them about a second later, long before their 60 s lease
 * would have run out.
 */
class GracefulHandOverTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    private static final int MESSAGES = 50;

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void sigtermWithUnsentClaims_secondSidecarPublishesThemWithinAboutASecond() throws Exception {
        int firstPort = ServeProcesses.freePort();
        int unreachableRelay = ServeProcesses.freePort();
        Map<String, String> first = environment("first", firstPort);
        first.put("RELAY_URL", "ws://127.0.0.1:" + unreachableRelay);
        Process firstSidecar = processes.start(first, work.resolve("first.log"));
        ServeProcesses.awaitHealthy(firstSidecar, firstPort, work.resolve("first.log"));
        OwnerClient owner = new OwnerClient(firstPort);
        // 30 s ahead: on a machine shared with other builds the 50 creates took over 10 s.
        long due = Instant.now().plusSeconds(30).getEpochSecond();
        List<NostrEvent> events = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            NostrEvent event = owner.messageAt(i % 2 == 0 ? "general" : "random", "hand-over " + i, due);
            OwnerClient.Reply created = owner.schedule(event);
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            events.add(event);
        }
        awaitCount("SELECT count(*) FROM scheduled_message WHERE attempts >= 1", MESSAGES, Duration.ofSeconds(90));

        try (TestRelay relay = TestRelay.start();
             LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"kinds\":[9]}")) {
            int secondPort = ServeProcesses.freePort();
            Map<String, String> second = environment("second", secondPort);
            second.put("RELAY_URL", relay.url().toString());
            Process secondSidecar = processes.start(second, work.resolve("second.log"));
            ServeProcesses.awaitHealthy(secondSidecar, secondPort, work.resolve("second.log"));
            // The first answers its held frames "not sent" at each failed reconnect and claims them again once their
            // retry time comes; the second publishes whatever it gets in between, within milliseconds of its claim.
            // Stop the first while it holds every message the second has not published: nothing scheduled, some
            // sending, and neither count moving over half a second (rows the second held would have been published).
            long[] since = {-1, 0}; // the sending count seen with nothing scheduled, and since when (nanoTime)
            Poll.until("the first holding every unpublished message", Duration.ofSeconds(90), () -> {
                try {
                    long scheduled = count("SELECT count(*) FROM scheduled_message WHERE state = 'scheduled'");
                    long sending = count("SELECT count(*) FROM scheduled_message WHERE state = 'sending'");
                    if (scheduled != 0 || sending == 0 || sending != since[0]) {
                        since[0] = scheduled == 0 && sending > 0 ? sending : -1;
                        since[1] = System.nanoTime();
                        return false;
                    }
                    return System.nanoTime() - since[1] >= TimeUnit.MILLISECONDS.toNanos(500);
                } catch (Exception e) {
                    return false;
                }
            });
            long held = count("SELECT count(*) FROM scheduled_message WHERE state = 'sending'");

            long stopped = System.nanoTime();
            firstSidecar.destroy(); // SIGTERM: the shutdown hook stops the dispatcher gracefully
            List<LiveEvents.Arrival> arrivals = live.await(MESSAGES, Duration.ofSeconds(20));
            Duration handOver = Duration.ofNanos(System.nanoTime() - stopped);
            assertThat(firstSidecar.waitFor(20, TimeUnit.SECONDS)).as("the first sidecar exits").isTrue();

            System.out.printf("F24: %d unsent claims handed over and published %d ms after SIGTERM%n", held,
                    handOver.toMillis());
            Set<String> expected = events.stream().map(e -> e.id().hex()).collect(Collectors.toSet());
            assertThat(arrivals.stream().map(LiveEvents.Arrival::eventId).collect(Collectors.toSet()))
                    .isEqualTo(expected);
            assertThat(arrivals).hasSize(MESSAGES);
            assertThat(handOver).as("far sooner than the 60 s lease").isLessThan(Duration.ofSeconds(5));
            java.util.regex.Matcher givenBack = java.util.regex.Pattern.compile("dispatcher stopped: (\\d+) claim\\(s\\)"
                    + " given back").matcher(ServeProcesses.output(work.resolve("first.log")));
            assertThat(givenBack.find()).as("the first logs what it gave back").isTrue();
            assertThat(Long.parseLong(givenBack.group(1))).as("claims given back at the stop").isPositive();
            awaitCount("SELECT count(*) FROM scheduled_message WHERE state = 'published'", MESSAGES,
                    Duration.ofSeconds(10));
        }
    }

    private Map<String, String> environment(String name, int httpPort) {
        return new HashMap<>(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                "BUZZ_DATA_DIR", work.resolve(name).toString(), "HTTP_PORT", Integer.toString(httpPort),
                "BUZZ_SCHEDULED_MESSAGES", "on", "BUZZ_SHUTDOWN_GRACE_SECONDS", "5",
                // One owner schedules all 50 at once: a burst above the default per-owner write rate.
                "BUZZ_OWNER_WRITE_BURST", "1000"));
    }

    private static long count(String sql) throws Exception {
        return Long.parseLong(ServeProcesses.query(DATABASE.jdbcUrl(), sql));
    }

    private static void awaitCount(String sql, long expected, Duration timeout) throws Exception {
        Poll.until(sql + " = " + expected, timeout, () -> {
            try {
                return count(sql) == expected;
            } catch (Exception e) {
                return false;
            }
        });
    }
}

package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.FakeRelay;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
 * docs/failure-scenarios.md F6: the only sidecar is killed with SIGKILL while it holds 50 claims (its relay never
 * answers, so the sends hang in flight); started again against a relay that works, it publishes all 50 within the lease
 * plus the reaper's period, and none stays {@code claimed} or {@code sending}.
 */
class KilledSidecarRecoveryTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    private static final int MESSAGES = 50;
    private static final Duration LEASE = Duration.ofSeconds(12);
    private static final Duration REAP_GRACE = Duration.ofSeconds(1);
    private static final Duration REAPER_PERIOD = Duration.ofSeconds(5);

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void sigkillWithFiftyClaims_restart_publishesAllWithinLeasePlusReaperPeriod() throws Exception {
        int httpPort = ServeProcesses.freePort();
        Map<String, String> env = new HashMap<>(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                "BUZZ_DATA_DIR", work.resolve("var").toString(), "HTTP_PORT", Integer.toString(httpPort),
                "BUZZ_SCHEDULED_MESSAGES", "on", "BUZZ_LEASE_SECONDS", Long.toString(LEASE.toSeconds()),
                "BUZZ_PUBLISH_TIMEOUT_SECONDS", "6", "BUZZ_LEASE_MARGIN_SECONDS", "2",
                "BUZZ_REAP_GRACE_SECONDS", Long.toString(REAP_GRACE.toSeconds()),
                "BUZZ_MAX_IN_FLIGHT", "64"));
        env.put("BUZZ_CLAIM_BATCH_SIZE", "64");
        env.put("BUZZ_OWNER_WRITE_BURST", "1000"); // one owner schedules all 50 at once, above the default burst
        List<NostrEvent> events;
        Process first;
        try (FakeRelay silent = FakeRelay.start()) {
            silent.answerEvents(FakeRelay.Answer.silence());
            env.put("RELAY_URL", silent.url().toString());
            first = processes.start(env, work.resolve("first.log"));
            ServeProcesses.awaitHealthy(first, httpPort, work.resolve("first.log"));
            OwnerClient owner = new OwnerClient(httpPort);
            long due = Instant.now().plusSeconds(6).getEpochSecond();
            events = new java.util.ArrayList<>();
            for (int i = 0; i < MESSAGES; i++) {
                NostrEvent event = owner.messageAt(i % 2 == 0 ? "general" : "random", "message " + i, due);
                OwnerClient.Reply created = owner.schedule(event);
                assertThat(created.status()).as(created.text()).isEqualTo(201);
                events.add(event);
            }

            awaitCount("SELECT count(*) FROM scheduled_message WHERE state IN ('claimed', 'sending')", MESSAGES,
                    Duration.ofSeconds(30));
            first.destroyForcibly(); // SIGKILL: no shutdown hook, claims stay in the table
            assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
        Instant killedAt = Instant.now();
        assertThat(count("SELECT count(*) FROM scheduled_message WHERE state IN ('claimed', 'sending')"))
                .as("the killed sidecar left its claims behind").isEqualTo(MESSAGES);

        try (TestRelay relay = TestRelay.start();
             LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"kinds\":[9]}")) {
            env.put("RELAY_URL", relay.url().toString());
            Process second = processes.start(env, work.resolve("second.log"));
            ServeProcesses.awaitHealthy(second, httpPort, work.resolve("second.log"));

            Duration bound = LEASE.plus(REAP_GRACE).plus(REAPER_PERIOD).plus(Duration.ofSeconds(20));
            List<LiveEvents.Arrival> arrivals = live.await(MESSAGES, bound);
            awaitCount("SELECT count(*) FROM scheduled_message WHERE state = 'published'", MESSAGES,
                    Duration.ofSeconds(10));

            Duration took = Duration.between(killedAt, Instant.now());
            System.out.printf("F6: %d claims left by SIGKILL published %d ms after the kill (lease %d s)%n",
                    MESSAGES, took.toMillis(), LEASE.toSeconds());
            Set<String> expectedIds = events.stream().map(e -> e.id().hex()).collect(Collectors.toSet());
            assertThat(arrivals.stream().map(LiveEvents.Arrival::eventId).collect(Collectors.toSet()))
                    .isEqualTo(expectedIds);
            long dueSecond = events.get(0).createdAt();
            assertThat(arrivals).allSatisfy(arrival ->
                    assertThat(arrival.at()).as("never before the due time").isAfterOrEqualTo(Instant.ofEpochSecond(dueSecond)));
            assertThat(count("SELECT count(*) FROM scheduled_message WHERE state IN ('claimed', 'sending')")).isZero();
            assertThat(took).isLessThanOrEqualTo(bound.plusSeconds(10));
        }
    }

    private static long count(String sql) throws Exception {
        return Long.parseLong(ServeProcesses.query(DATABASE.jdbcUrl(), sql));
    }

    private static void awaitCount(String sql, long expected, Duration timeout) {
        Poll.until(sql + " to be " + expected, timeout, () -> count(sql), seen -> seen == expected);
    }
}

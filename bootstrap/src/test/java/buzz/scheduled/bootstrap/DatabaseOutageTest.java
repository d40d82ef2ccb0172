package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.testing.FakeRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The readiness part of docs/failure-scenarios.md F23: {@code serve} (its own JVM) on a PostgreSQL cluster this test
 * owns (initdb and pg_ctl through the embedded binaries, on a free port), which the test stops so the database is
 * really unreachable (connections refused). Throughout, {@code /readyz} and {@code /metrics} answer a client that waits
 * at most 1 s; readiness says why it is not ready; owner writes get a {@code 503} with {@code Retry-After} at once and
 * store nothing; {@code /healthz} stays up (an external outage is not the process's fault). When the cluster is back,
 * readiness and writes recover and nothing admitted before is lost. With 200 sends in flight when the cluster stops
 * (their OKs arrive during the outage), every outcome is kept and written within seconds of its return: nothing is
 * resent and nothing stays {@code sending}.
 */
class DatabaseOutageTest {

    /** Longer than the pool's 5 s connection timeout, so a check that waited for the pool would show. */
    private static final Duration OUTAGE = Duration.ofSeconds(7);

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void databaseStopped_readyzAndMetricsAnswerWithinASecond_writesAnswer503AtOnce_andAllRecovers() throws Exception {
        Path clusterDir = work.resolve("cluster");
        EmbeddedDatabase cluster = EmbeddedDatabase.start(clusterDir, Duration.ofSeconds(60), Duration.ofSeconds(20));
        int databasePort = cluster.port();
        try {
            int httpPort = ServeProcesses.freePort();
            Path log = work.resolve("serve.log");
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "DATABASE_URL", cluster.jdbcUrl()), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            OwnerClient owner = new OwnerClient(httpPort);
            OwnerClient.Reply kept = owner.schedule(owner.message("f23", "admitted before the outage", Duration.ofHours(1)));
            assertThat(kept.status()).as(kept.text()).isEqualTo(201);
            assertThat(TimedProbe.get(httpPort, "/readyz").status()).isEqualTo(200);

            cluster.close();

            long outageStarted = System.nanoTime();
            long worstReadyz = 0;
            long worstMetrics = 0;
            int notReady = 0;
            TimedProbe lastReadyz = null;
            while (System.nanoTime() - outageStarted < OUTAGE.toNanos()) {
                lastReadyz = TimedProbe.get(httpPort, "/readyz");
                TimedProbe metrics = TimedProbe.get(httpPort, "/metrics");
                worstReadyz = Math.max(worstReadyz, lastReadyz.millis());
                worstMetrics = Math.max(worstMetrics, metrics.millis());
                if (lastReadyz.status() == 503) {
                    notReady++;
                }
                Thread.sleep(50); // sampling interval of the probes, not a synchronisation stand-in
            }
            assertThat(lastReadyz.status()).isEqualTo(503);
            assertThat(lastReadyz.body()).contains("\"error\":\"not_ready\"").contains("the database is unreachable")
                    .containsIgnoringCase("refused");
            TimedProbe metrics = TimedProbe.get(httpPort, "/metrics");
            assertThat(metrics.body()).containsPattern("\nbuzz_database_up 0(\\.0)?\n")
                    .containsPattern("\nbuzz_reservations_up 0(\\.0)?\n");
            NostrEvent refused = owner.message("f23", "during the outage", Duration.ofHours(2));
            long writeStarted = System.nanoTime();
            OwnerClient.Reply write = owner.schedule(refused);
            long writeMillis = (System.nanoTime() - writeStarted) / 1_000_000;
            TimedProbe health = TimedProbe.get(httpPort, "/healthz");

            System.out.printf("F23 readiness: worst /readyz %d ms, worst /metrics %d ms over %d s of outage (%d"
                            + " not-ready answers); a write answered %d in %d ms%n", worstReadyz, worstMetrics,
                    OUTAGE.toSeconds(), notReady, write.status(), writeMillis);
            assertThat(worstReadyz).as("slowest /readyz during the outage, ms").isLessThan(1_000);
            assertThat(worstMetrics).as("slowest /metrics during the outage, ms").isLessThan(1_000);
            assertThat(write.status()).as(write.text()).isEqualTo(503);
            assertThat(write.json().get("error").asText()).isEqualTo("unavailable");
            assertThat(writeMillis).as("a write once the outage is known, ms").isLessThan(1_000);
            assertThat(health.status()).as("an external outage is not a reason to restart the sidecar").isEqualTo(200);

            cluster = EmbeddedDatabase.start(clusterDir, Duration.ofSeconds(60), Duration.ofSeconds(20));
            assertThat(cluster.port()).as("the cluster comes back on its port").isEqualTo(databasePort);
            Poll.until("readiness after the database returned", Duration.ofSeconds(15),
                    () -> TimedProbe.get(httpPort, "/readyz").status() == 200);
            OwnerClient.Reply after = owner.schedule(refused);
            assertThat(after.status()).as("the refused write, retried").isEqualTo(201);
            assertThat(owner.get(kept.json().get("id").asText()).json().get("state").asText()).isEqualTo("scheduled");
            assertThat(ServeProcesses.query(cluster.jdbcUrl(), "SELECT count(*) FROM scheduled_message"))
                    .as("the message from before and the retried one, nothing from the refused attempt").isEqualTo("2");
            // Claiming works again: after a pause if the watch saw the outage before the claim loop's next claim, or,
            // when that claim met the outage first (it waits out the pool's connection timeout, 5 s, which on a
            // loaded machine can outlast the watch's first check), as the claim loop recovering. On a time-out the
            // failure shows the log's lines about claiming and the database.
            String claiming = Poll.until("claiming to resume in the log", Duration.ofSeconds(15),
                    () -> ServeProcesses.output(log).lines().filter(line -> line.contains("claim")
                            || line.contains("database")).collect(Collectors.joining("\n")),
                    lines -> lines.contains("claiming resumed") || lines.contains("claim loop recovered"));
            String output = ServeProcesses.output(log);
            int paused = ServeProcesses.occurrences(output, "claiming paused");
            int failed = ServeProcesses.occurrences(output, "claim loop failed");
            assertThat(paused).as("the claim loop pauses for an outage the watch knows of, and says so once, not each"
                    + " second of the outage: %s", claiming).isLessThanOrEqualTo(1);
            assertThat(failed).as("at most a claim asked before the watch saw the outage fails: %s", claiming)
                    .isLessThanOrEqualTo(1);
            assertThat(paused + failed).as("the outage was noticed by the claim loop: %s", claiming).isPositive();
            if (paused == 1) {
                assertThat(claiming).contains("claiming resumed");
            }
        } finally {
            cluster.close();
        }
    }

    @Test
    void f23_databaseDownFiveSecondsWith200SendsInFlight_allRecordedSoonAfterItReturns_noneSentTwice()
            throws Exception {
        Path clusterDir = work.resolve("cluster-f23");
        EmbeddedDatabase cluster = EmbeddedDatabase.start(clusterDir, Duration.ofSeconds(60), Duration.ofSeconds(20));
        int databasePort = cluster.port();
        try (FakeRelay relay = FakeRelay.start()) {
            // Every OK comes 3 s late, so the outcomes arrive while the database is down.
            relay.answerEvents(FakeRelay.Answer.late(Duration.ofSeconds(3), true, ""));
            int httpPort = ServeProcesses.freePort();
            Path log = work.resolve("serve-f23.log");
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var-f23").toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "RELAY_URL", relay.url().toString(), "BUZZ_MAX_PENDING_PER_OWNER", "1000",
                    "BUZZ_OWNER_WRITE_BURST", "1000", // one owner schedules all 200 at once
                    "DATABASE_URL", cluster.jdbcUrl()), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            OwnerClient owner = new OwnerClient(httpPort);
            long due = java.time.Instant.now().plusSeconds(10).getEpochSecond();
            java.util.Set<String> ids = new java.util.HashSet<>();
            for (int i = 0; i < 200; i++) {
                NostrEvent event = owner.messageAt("f23-" + i % 10, "in flight " + i, due);
                OwnerClient.Reply created = owner.schedule(event);
                assertThat(created.status()).as(created.text()).isEqualTo(201);
                ids.add(event.id().hex());
            }
            Poll.until("200 frames at the relay", Duration.ofSeconds(40),
                    () -> relay.received("EVENT").size() >= 200);

            cluster.close();
            long outageStarted = System.nanoTime();
            long worstReadyz = 0;
            while (System.nanoTime() - outageStarted < Duration.ofSeconds(5).toNanos()) {
                worstReadyz = Math.max(worstReadyz, TimedProbe.get(httpPort, "/readyz").millis());
                Thread.sleep(100); // sampling interval of the probe, not a synchronisation stand-in
            }
            cluster = EmbeddedDatabase.start(clusterDir, Duration.ofSeconds(60), Duration.ofSeconds(20));
            long back = System.nanoTime();
            String url = cluster.jdbcUrl();
            Poll.until("every message recorded published", Duration.ofSeconds(30), () -> {
                try {
                    return ServeProcesses.query(url, "SELECT count(*) FROM scheduled_message WHERE state = "
                            + "'published'").equals("200");
                } catch (Exception e) {
                    return false;
                }
            });
            long recordedAfter = (System.nanoTime() - back) / 1_000_000;
            java.util.Map<String, Long> perEvent = relay.received("EVENT").stream()
                    .collect(java.util.stream.Collectors.groupingBy(FakeRelay.Received::eventId,
                            java.util.stream.Collectors.counting()));
            System.out.printf("F23: 200 sends in flight over a 5 s outage; all recorded published %d ms after the"
                    + " database returned; worst /readyz %d ms; %d frames for %d events%n", recordedAfter,
                    worstReadyz, relay.received("EVENT").size(), perEvent.size());

            assertThat(perEvent.keySet()).isEqualTo(ids);
            assertThat(perEvent.values()).as("the outcomes were kept and written, not resent")
                    .allSatisfy(n -> assertThat(n).isEqualTo(1L));
            assertThat(recordedAfter).as("ms from the database's return to the last outcome recorded")
                    .isLessThan(10_000);
            assertThat(ServeProcesses.query(url, "SELECT count(*) FROM scheduled_message WHERE state IN "
                    + "('claimed', 'sending')")).isEqualTo("0");
            assertThat(worstReadyz).as("slowest /readyz during the outage, ms").isLessThan(1_000);
        } finally {
            cluster.close();
        }
    }
}

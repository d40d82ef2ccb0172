package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/failure-scenarios.md F28: every session of a running {@code serve} (its own JVM) ended at once with
 * {@code pg_terminate_backend} while the server stays up, as a failover or an operator does, three times during 200
 * creates from four owners. A request that meets a dead pooled session runs once more on a new one, and the database
 * watch tries its read again on a new session before calling anything an outage: every create answers {@code 201},
 * none {@code 503}, and {@code /readyz} stays {@code 200}.
 */
class AllBackendsKilledTest {

    private static final int OWNERS = 4;
    private static final int CREATES_PER_OWNER = 50;
    private static final int KILLS = 3;

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void f28_everySessionTerminatedThreeTimesDuringTwoHundredCreates_noneAnswers503_andReadinessStaysUp()
            throws Exception {
        int httpPort = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                "DATABASE_URL", db.postgresUrl(), "BUZZ_OWNER_WRITE_BURST", "1000"), log);
        ServeProcesses.awaitHealthy(serve, httpPort, log);
        List<OwnerClient> owners = new ArrayList<>();
        for (int i = 0; i < OWNERS; i++) {
            owners.add(new OwnerClient(httpPort));
        }

        AtomicInteger done = new AtomicInteger();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        List<Integer> terminated = new ArrayList<>();
        List<Integer> readiness = new ArrayList<>();
        try (ExecutorService clients = Executors.newFixedThreadPool(OWNERS)) {
            List<Future<?>> running = new ArrayList<>();
            for (OwnerClient owner : owners) {
                running.add(clients.submit(() -> {
                    for (int i = 0; i < CREATES_PER_OWNER; i++) {
                        // One channel per message: the per-channel window limit stays out of the way.
                        OwnerClient.Reply reply = owner.schedule(owner.message("f28-" + i, "create " + i,
                                Duration.ofHours(1)));
                        if (reply.status() != 201) {
                            failures.add(reply.status() + " " + reply.text());
                        }
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            int total = OWNERS * CREATES_PER_OWNER;
            for (int kill = 1; kill <= KILLS; kill++) {
                int after = total * kill / (KILLS + 1);
                Poll.until(after + " creates answered", Duration.ofSeconds(60), () -> done.get() >= after);
                terminated.add(db.terminateSessions("buzz-"));
                readiness.add(TimedProbe.get(httpPort, "/readyz").status());
            }
            while (running.stream().anyMatch(f -> !f.isDone())) {
                readiness.add(TimedProbe.get(httpPort, "/readyz").status());
                Thread.sleep(20); // sampling interval of the probe, not a synchronisation stand-in
            }
            for (Future<?> future : running) {
                future.get();
            }
        }
        readiness.add(TimedProbe.get(httpPort, "/readyz").status());

        System.out.printf("F28: %d creates across %d kills of every session (%s sessions each time): %d not 201;"
                + " /readyz answers %s%n", done.get(), KILLS, terminated, failures.size(),
                readiness.stream().distinct().toList());
        assertThat(terminated).as("the pool's sessions, the probe's and the listener's were ended each time")
                .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(3));
        assertThat(failures).as("creates that did not answer 201 while the database answered").isEmpty();
        assertThat(readiness).as("/readyz while the database answered").containsOnly(200);
        assertThat(ServeProcesses.query(db.jdbcUrl(), "SELECT count(*) FROM scheduled_message"))
                .isEqualTo(Integer.toString(OWNERS * CREATES_PER_OWNER));
        assertThat(ServeProcesses.output(log)).doesNotContain(" ERROR ");
    }
}

package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import buzz.scheduled.bootstrap.database.EmbeddedSuperuser;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/failure-scenarios.md F27: the database turns read-only under a running {@code serve} (its own JVM, the real
 * Node relay), as after a failover that leaves the sidecar's URL on a standby, and later takes writes again. Two ways
 * real PostgreSQL gets there:
 * <ul>
 *   <li>{@code ALTER DATABASE … SET default_transaction_read_only = on} on a scratch database and every sidecar
 *       session terminated, so the sessions it opens again are read-only; writable again by {@code RESET} alone,
 *       which new sessions only see, so sessions made during the outage stay read-only (what kept the sidecar failing
 *       for minutes before);</li>
 *   <li>{@code ALTER SYSTEM SET default_transaction_read_only = on} and a reload on a cluster this test owns: the
 *       sidecar's existing pooled sessions get SQLSTATE 25006 at their next write.</li>
 * </ul>
 * Throughout, {@code /readyz} answers within a second and turns 503 within a few seconds (the figure is printed), every
 * create answers {@code 503} with {@code Retry-After} (never 500), a message falling due is not claimed, and no ERROR
 * is logged. Once writable, a create succeeds and the message is delivered within a few seconds (printed).
 */
class ReadOnlyFailoverTest {

    private static final Duration OUTAGE = Duration.ofSeconds(6);

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    /** Turns the database read-only and writable again. */
    private interface ReadOnlySwitch {
        void readOnly() throws Exception;

        void writable() throws Exception;
    }

    @Test
    void f27_newSessionsReadOnly_backendsTerminated_thenWritableForNewSessionsOnly_outageAndFullRecovery()
            throws Exception {
        try {
            run("ALTER DATABASE + terminate", db.postgresUrl(), new ReadOnlySwitch() {
                @Override
                public void readOnly() {
                    db.executeOnServer("ALTER DATABASE " + db.databaseName()
                            + " SET default_transaction_read_only = on");
                    db.terminateSessions("buzz-");
                }

                @Override
                public void writable() {
                    db.executeOnServer("ALTER DATABASE " + db.databaseName() + " RESET default_transaction_read_only");
                }
            });
        } finally {
            db.executeOnServer("ALTER DATABASE " + db.databaseName() + " RESET default_transaction_read_only");
        }
    }

    @Test
    void f27_existingPooledSessionsRefusedWrites_afterAlterSystemAndReload_outageAndFullRecovery() throws Exception {
        Path clusterDir = work.resolve("cluster");
        try (EmbeddedDatabase cluster = EmbeddedDatabase.start(clusterDir, Duration.ofSeconds(60),
                Duration.ofSeconds(20))) {
            String superuser = EmbeddedSuperuser.jdbcUrl(clusterDir, cluster, "postgres");
            run("ALTER SYSTEM + reload", cluster.jdbcUrl(), new ReadOnlySwitch() {
                @Override
                public void readOnly() throws SQLException {
                    ServeProcesses.execute(superuser, "ALTER SYSTEM SET default_transaction_read_only = on",
                            "SELECT pg_reload_conf()");
                }

                @Override
                public void writable() throws SQLException {
                    ServeProcesses.execute(superuser, "SET default_transaction_read_only = off",
                            "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
                }
            });
        }
    }

    private void run(String how, String databaseUrl, ReadOnlySwitch database) throws Exception {
        int httpPort = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        try (TestRelay relay = TestRelay.start()) {
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "RELAY_URL", relay.url().toString(), "DATABASE_URL", databaseUrl), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            OwnerClient owner = new OwnerClient(httpPort);
            assertThat(owner.schedule(owner.message("f27", "before the failover", Duration.ofHours(1))).status())
                    .isEqualTo(201);
            NostrEvent dueInTheOutage = owner.message("f27", "falls due while the database is read-only",
                    Duration.ofSeconds(4));
            assertThat(owner.schedule(dueInTheOutage).status()).isEqualTo(201);
            Poll.until("ready", Duration.ofSeconds(10), () -> TimedProbe.get(httpPort, "/readyz").status() == 200);

            try (LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"ids\":[\"" + dueInTheOutage.id().hex()
                    + "\"]}")) {
                database.readOnly();
                long switched = System.nanoTime(); // the database is read-only from here on
                assertThat(java.time.Instant.now().getEpochSecond()).as("the switch came before the due time")
                        .isLessThan(dueInTheOutage.createdAt());
                long notReadyAfter = -1;
                long worstReadyz = 0;
                List<Long> readyzMillis = new ArrayList<>();
                List<Integer> createStatuses = new ArrayList<>();
                List<String> refusals = new ArrayList<>();
                long nextCreate = System.nanoTime();
                while (System.nanoTime() - switched < OUTAGE.toNanos()) {
                    TimedProbe readyz = TimedProbe.get(httpPort, "/readyz");
                    readyzMillis.add(readyz.millis());
                    worstReadyz = Math.max(worstReadyz, readyz.millis());
                    if (readyz.status() == 503 && notReadyAfter < 0) {
                        notReadyAfter = (System.nanoTime() - switched) / 1_000_000;
                    }
                    if (System.nanoTime() - nextCreate >= 0) {
                        OwnerClient.Reply create = owner.schedule(owner.message("f27", "during the outage "
                                + createStatuses.size(), Duration.ofHours(2)));
                        createStatuses.add(create.status());
                        if (create.status() != 503 || create.headers().firstValue("Retry-After").isEmpty()) {
                            refusals.add(create.status() + " " + create.headers().map() + " " + create.text());
                        }
                        nextCreate = System.nanoTime() + Duration.ofMillis(250).toNanos();
                    }
                    Thread.sleep(50); // sampling interval of the probe, not a synchronisation stand-in
                }
                TimedProbe lastReadyz = TimedProbe.get(httpPort, "/readyz");
                assertThat(live.arrivals()).as("nothing claimed while the database is read-only").isEmpty();

                database.writable();
                long writable = System.nanoTime(); // the database takes writes again from here on
                java.time.Instant writableAt = java.time.Instant.now();
                long createdAfter;
                while (true) {
                    OwnerClient.Reply create = owner.schedule(owner.message("f27", "after the failover",
                            Duration.ofHours(3)));
                    if (create.status() == 201) {
                        createdAfter = (System.nanoTime() - writable) / 1_000_000;
                        break;
                    }
                    assertThat(create.status()).as(create.text()).isEqualTo(503);
                    assertThat(System.nanoTime() - writable).as("ns until a create succeeds")
                            .isLessThan(Duration.ofSeconds(30).toNanos());
                    Thread.sleep(100); // a client retrying after a 503, not a synchronisation stand-in
                }
                live.await(1, Duration.ofSeconds(30));
                long deliveredAfter = Duration.between(writableAt, live.arrivals().get(0).at()).toMillis();
                Poll.until("ready again", Duration.ofSeconds(10),
                        () -> TimedProbe.get(httpPort, "/readyz").status() == 200);

                readyzMillis.sort(null);
                System.out.printf("F27 (%s): /readyz 503 %d ms after the database turned read-only; /readyz answers"
                                + " during the outage:"
                                + " median %d ms, worst %d ms over %d probes; %d creates during the outage, all 503"
                                + " with Retry-After: %s; writable again -> first create %d ms, first delivery %d ms%n",
                        how, notReadyAfter, readyzMillis.get(readyzMillis.size() / 2), worstReadyz,
                        readyzMillis.size(), createStatuses.size(), refusals.isEmpty(), createdAfter, deliveredAfter);
                assertThat(notReadyAfter).as("ms from the switch to /readyz 503").isBetween(0L, 3_000L);
                assertThat(lastReadyz.status()).isEqualTo(503);
                assertThat(lastReadyz.body()).contains("not_ready").contains("takes no writes");
                assertThat(worstReadyz).as("slowest /readyz, ms").isLessThan(TimedProbe.TIMEOUT.toMillis());
                assertThat(createStatuses).as("creates during the outage").isNotEmpty();
                assertThat(refusals).as("creates that did not answer 503 with Retry-After").isEmpty();
                assertThat(createdAfter).as("ms from writable to the first successful create").isLessThan(5_000);
                assertThat(deliveredAfter).as("ms from writable to the delivery of the message due in the outage")
                        .isLessThan(5_000);
            }
            String output = ServeProcesses.output(log);
            assertThat(output).as("a read-only database is an outage, not an error").doesNotContain(" ERROR ")
                    .contains("the database answers but refuses writes").contains("claiming paused")
                    .contains("the database takes writes again").contains("claiming resumed");
            assertThat(ServeProcesses.occurrences(output, "the database answers but refuses writes"))
                    .as("warned once").isEqualTo(1);
        }
    }
}

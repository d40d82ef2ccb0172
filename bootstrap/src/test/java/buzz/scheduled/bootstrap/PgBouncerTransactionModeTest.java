package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import buzz.scheduled.adapters.postgres.SharedSessionCheck;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * docs/failure-scenarios.md F21: {@code DATABASE_URL} through a real PgBouncer in transaction mode (its own process,
 * generated ini), {@code BUZZ_DIRECT_DATABASE_URL} straight to PostgreSQL, {@code serve} in its own JVM and the real
 * Node relay. It must start (migrations over the direct URL; no named prepared statements through the pooler), admit
 * concurrent creates from several owners and deliver each within the usual second of its due time, which only LISTEN on
 * the direct URL achieves (the backstop poll is 30 s). Without a direct URL, or with one that goes through PgBouncer
 * too, {@code serve} and {@code migrate} stop at once with exit code 2 and one line naming
 * {@code BUZZ_DIRECT_DATABASE_URL} (F29), instead of failing deep in Flyway.
 */
class PgBouncerTransactionModeTest {

    private static final Duration LATENESS_LIMIT = Duration.ofSeconds(1);
    private static final int OWNERS = 4;
    private static final int MESSAGES_PER_OWNER = 6;

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void serve_databaseUrlThroughPgBouncerTransactionMode_startsAdmitsAndDeliversWithinASecondOfDue()
            throws Exception {
        int httpPort = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        try (PgBouncer bouncer = PgBouncer.transactionMode(db.host(), db.port(), db.user(), db.password());
             TestRelay relay = TestRelay.start()) {
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "RELAY_URL", relay.url().toString(),
                    "DATABASE_URL", bouncer.url(db.databaseName(), db.user()),
                    "BUZZ_DIRECT_DATABASE_URL", db.postgresUrl()), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            Poll.until("the listener to hear its own test notification", Duration.ofSeconds(15),
                    () -> ServeProcesses.output(log).contains("listening on buzz_scheduled_due for due work"));

            List<OwnerClient> owners = new ArrayList<>();
            for (int i = 0; i < OWNERS; i++) {
                owners.add(new OwnerClient(httpPort));
            }
            // A first create loads the admission path of a cold JVM, which can take seconds on a busy machine.
            assertThat(owners.get(0).schedule(owners.get(0).message("bouncer-warm-up", "warm-up",
                    Duration.ofHours(1))).status()).isEqualTo(201);
            Instant base = Instant.now().plusSeconds(4);
            Map<String, Instant> due = new LinkedHashMap<>();
            List<NostrEvent> events = new ArrayList<>();
            List<OwnerClient> authors = new ArrayList<>();
            for (int m = 0; m < MESSAGES_PER_OWNER; m++) {
                for (int o = 0; o < OWNERS; o++) {
                    long createdAt = base.getEpochSecond() + m / 2;
                    NostrEvent event = owners.get(o).messageAt("bouncer-" + o, "through pgbouncer " + m, createdAt);
                    events.add(event);
                    authors.add(owners.get(o));
                    due.put(event.id().hex(), Instant.ofEpochSecond(createdAt));
                }
            }
            NostrEvent later = owners.get(0).message("bouncer-0", "sent now through pgbouncer", Duration.ofMinutes(10));
            String filter = "{\"ids\":[" + java.util.stream.Stream.concat(due.keySet().stream(),
                    java.util.stream.Stream.of(later.id().hex())).map(id -> "\"" + id + "\"")
                    .collect(Collectors.joining(",")) + "]}";

            try (LiveEvents live = LiveEvents.subscribe(relay.url(), filter);
                 ExecutorService creates = Executors.newFixedThreadPool(OWNERS)) {
                List<Future<OwnerClient.Reply>> replies = new ArrayList<>();
                for (int i = 0; i < events.size(); i++) {
                    OwnerClient author = authors.get(i);
                    NostrEvent event = events.get(i);
                    replies.add(creates.submit(() -> author.schedule(event)));
                }
                for (Future<OwnerClient.Reply> reply : replies) {
                    assertThat(reply.get().status()).as(reply.get().text()).isEqualTo(201);
                }
                assertThat(Instant.now()).as("every create was stored before the first due time").isBefore(base);
                OwnerClient.Reply scheduled = owners.get(0).schedule(later);
                assertThat(scheduled.status()).as(scheduled.text()).isEqualTo(201);

                List<LiveEvents.Arrival> arrivals = live.await(due.size(), Duration.ofSeconds(30));
                Instant sendNowAt = Instant.now();
                OwnerClient.Reply sent = owners.get(0).sendNow(scheduled.json().get("id").asText());
                assertThat(sent.status()).as(sent.text()).isEqualTo(202);
                arrivals = live.await(due.size() + 1, Duration.ofSeconds(30));

                Duration worst = Duration.ZERO;
                for (LiveEvents.Arrival arrival : arrivals) {
                    if (arrival.eventId().equals(later.id().hex())) {
                        assertThat(Duration.between(sendNowAt, arrival.at())).as("send-now through pgbouncer")
                                .isLessThanOrEqualTo(LATENESS_LIMIT);
                        continue;
                    }
                    Instant dueAt = due.get(arrival.eventId());
                    assertThat(arrival.at()).as("never before the due time").isAfterOrEqualTo(dueAt);
                    Duration lateness = Duration.between(dueAt, arrival.at());
                    worst = lateness.compareTo(worst) > 0 ? lateness : worst;
                }
                assertThat(arrivals).extracting(LiveEvents.Arrival::eventId).doesNotHaveDuplicates()
                        .hasSize(due.size() + 1);
                System.out.printf("F21 through pgbouncer (transaction mode): %d messages delivered, worst lateness"
                        + " %d ms; send-now %d ms%n", due.size(), worst.toMillis(), arrivals.stream()
                        .filter(a -> a.eventId().equals(later.id().hex())).findFirst().orElseThrow().at().toEpochMilli()
                        - sendNowAt.toEpochMilli());
                assertThat(worst).as("worst lateness through pgbouncer").isLessThanOrEqualTo(LATENESS_LIMIT);
            }

            List<Map<String, String>> clients = bouncer.clients();
            assertThat(clients).as("the pool's connections go through pgbouncer")
                    .anySatisfy(client -> assertThat(client).containsEntry("database", db.databaseName())
                            .containsEntry("application_name", "buzz-scheduled-delivery"));
            assertThat(clients).as("LISTEN does not").noneSatisfy(client ->
                    assertThat(client.get("application_name")).isEqualTo("buzz-due-listener"));
            String output = Files.readString(log);
            assertThat(output).doesNotContain("prepared statement").doesNotContain(" ERROR ")
                    .doesNotContain("did not hear its own test notification");
            assertThat(bouncer.log()).doesNotContain("prepared statement");
        }
    }

    @Test
    void f29_serve_databaseUrlThroughPgBouncerWithoutADirectUrl_exits2InOneLineNamingTheDirectUrl() throws Exception {
        try (PgBouncer bouncer = PgBouncer.transactionMode(db.host(), db.port(), db.user(), db.password())) {
            ServeProcesses.Completed serve = processes.run(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(ServeProcesses.freePort()),
                    "DATABASE_URL", bouncer.url(db.databaseName(), db.user())), List.of("serve"), "",
                    Duration.ofSeconds(90));

            assertRefusedInOneLine(serve, "serve: invalid configuration: DATABASE_URL");
        }
    }

    @Test
    void f29_migrate_directUrlThroughPgBouncerToo_exits2InOneLineNamingIt() throws Exception {
        try (PgBouncer bouncer = PgBouncer.transactionMode(db.host(), db.port(), db.user(), db.password())) {
            ServeProcesses.Completed migrate = processes.run(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "DATABASE_URL", bouncer.url(db.databaseName(), db.user()),
                    "BUZZ_DIRECT_DATABASE_URL", bouncer.url(db.databaseName(), db.user())), List.of("migrate"), "",
                    Duration.ofSeconds(90));

            assertRefusedInOneLine(migrate, "migrate: invalid configuration: BUZZ_DIRECT_DATABASE_URL");
        }
    }

    @Test
    void sharedSession_directUrl_none_throughPgBouncerTransactionMode_found() throws Exception {
        try (PgBouncer bouncer = PgBouncer.transactionMode(db.host(), db.port(), db.user(), db.password())) {
            assertThat(SharedSessionCheck.sharedSession(DatabaseUrl.parse(db.postgresUrl()))).isEmpty();
            assertThat(SharedSessionCheck.sharedSession(DatabaseUrl.parse(bouncer.url(db.databaseName(), db.user()))))
                    .hasValueSatisfying(why -> assertThat(why).contains("one PostgreSQL session"));
        }
    }

    /** Exit 2, and the reason in one line of standard error that names BUZZ_DIRECT_DATABASE_URL, no stack trace. */
    private static void assertRefusedInOneLine(ServeProcesses.Completed run, String startsWith) {
        List<String> naming = run.stderr().lines().filter(line -> line.contains("BUZZ_DIRECT_DATABASE_URL")).toList();
        System.out.println("F29: exit " + run.exitCode() + ": " + naming);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(Main.EXIT_USAGE);
        assertThat(naming).as(run.toString()).hasSize(1);
        assertThat(naming.get(0)).startsWith(startsWith).contains("PgBouncer");
        assertThat(run.stderr()).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception")
                .doesNotContain(" ERROR ");
    }
}

package buzz.scheduled.bootstrap.access;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.http.access.CallbackAccessPolicy;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.nip29.GroupFeed;
import buzz.scheduled.adapters.relay.nip29.Nip29TestRelay;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.Sidecar;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.domain.nostr.NostrEvent;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve}'s wiring of access, deletion and reservations, through {@link Sidecar} as {@code Main} starts it
 * (configuration from an environment map, real PostgreSQL, real NIP-98): the operator routes for
 * {@code RELAY_OPERATOR_PUBKEYS}, the reservation gauges, and the {@code http} and {@code nip29} access policies
 * refusing at admission.
 */
class ServeAccessWiringTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final SecretKey OPERATOR = new SecretKey("0b".repeat(32));
    private static final SecretKey ALICE = new SecretKey("a1".repeat(32));
    private static final SecretKey BOB = new SecretKey("b2".repeat(32));
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dataDir;

    private Sidecar sidecar;
    private SignedClient client;

    @BeforeEach
    void emptyTables() {
        db.truncateAllTables();
    }

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    /** Starts {@code serve}'s sidecar with the scratch database, a free port, the flag on and {@code extra}. */
    private void serve(Map<String, String> extra) throws Exception {
        int port = freePort();
        Map<String, String> environment = new HashMap<>(Map.of("DATABASE_URL", db.jdbcUrl(),
                "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(port),
                "BUZZ_SCHEDULED_MESSAGES", "on"));
        environment.putAll(extra);
        sidecar = new Sidecar();
        sidecar.start(SidecarConfig.fromEnvironment(environment));
        client = new SignedClient(sidecar.httpPort(), URI.create("http://127.0.0.1:" + port));
    }

    private String scheduled(SecretKey author, NostrEvent event) {
        SignedClient.Reply reply = client.schedule(author, event);
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply.json().get("id").asText();
    }

    private static Instant dueIn(Duration wait) {
        return Instant.now().plus(wait).truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    }

    @Test
    void reservations_operatorConfigured_answerTheFiguresToTheOperatorAndForbidAnyoneElse() throws Exception {
        serve(Map.of("RELAY_OPERATOR_PUBKEYS", OPERATOR.publicKey().hex(),
                "RELAY_URL", "ws://127.0.0.1:" + freePort())); // nothing listens: due messages stay overdue
        Instant due = dueIn(Duration.ofSeconds(1));
        Instant later = dueIn(Duration.ofHours(1));
        scheduled(ALICE, SignedClient.message(ALICE, "general", due, "while the relay is away"));
        scheduled(ALICE, SignedClient.message(ALICE, "general", later, "in an hour"));

        Poll.until("the first message to be overdue", WAIT, () -> client.send(OPERATOR, "GET", "/v1/reservations",
                null).json().get("overdue").asInt() == 1);
        SignedClient.Reply operator = client.send(OPERATOR, "GET", "/v1/reservations", null);
        SignedClient.Reply owner = client.send(ALICE, "GET", "/v1/reservations", null);
        SignedClient.Reply anonymous = client.send(null, "GET", "/v1/reservations", null);
        String metrics = client.send(null, "GET", "/metrics", null).text();
        SignedClient.Reply deleted = client.send(OPERATOR, "POST", "/v1/admin/channels/general/deleted", null);

        assertThat(operator.status()).as(operator.text()).isEqualTo(200);
        assertThat(operator.text()).isEqualTo("{\"held_before\":" + due.getEpochSecond() + ",\"overdue\":1,"
                + "\"next_due\":" + later.getEpochSecond() + "}");
        assertThat(owner.status()).as(owner.text()).isEqualTo(403);
        assertThat(owner.error()).isEqualTo("forbidden");
        assertThat(anonymous.status()).isEqualTo(401);
        assertThat(OperatorViewStack.sample(metrics, "buzz_reservations_up")).isEqualTo(1);
        assertThat(OperatorViewStack.sample(metrics, "buzz_reservations_overdue")).isEqualTo(1);
        assertThat(OperatorViewStack.sample(metrics, "buzz_reservations_held_before_timestamp_seconds"))
                .isEqualTo(due.getEpochSecond());
        assertThat(deleted.status()).as(deleted.text()).isEqualTo(200);
        assertThat(deleted.json().get("newly_deleted").asBoolean()).isTrue();
        assertThat(deleted.json().get("failed").asInt() + deleted.json().get("in_flight").asInt()).isEqualTo(2);
        assertThat(client.schedule(ALICE, SignedClient.message(ALICE, "general", dueIn(Duration.ofHours(2)),
                "after the deletion")).error()).isEqualTo("channel_not_found");
    }

    @Test
    void metrics_noOperatorConfigured_keepTheReservationGaugesAndForbidEveryOperatorRequest() throws Exception {
        serve(Map.of("RELAY_URL", "ws://127.0.0.1:" + freePort()));

        String metrics = client.send(null, "GET", "/metrics", null).text();
        SignedClient.Reply reservations = client.send(OPERATOR, "GET", "/v1/reservations", null);

        assertThat(OperatorViewStack.sample(metrics, "buzz_reservations_up")).isEqualTo(1);
        assertThat(OperatorViewStack.sample(metrics, "buzz_reservations_overdue")).isZero();
        assertThat(reservations.status()).as(reservations.text()).isEqualTo(403);
        assertThat(reservations.error()).isEqualTo("forbidden");
    }

    @Test
    void httpPolicy_callbackDeniesBob_admissionRefusesHimWithTheCallbacksReasonAndAdmitsAlice() throws Exception {
        List<String> questions = new CopyOnWriteArrayList<>();
        HttpServer callback = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        callback.createContext("/access", exchange -> {
            String question;
            try (InputStream in = exchange.getRequestBody()) {
                question = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            questions.add(exchange.getRequestMethod() + " " + question);
            String answer = question.contains(BOB.publicKey().hex())
                    ? "{\"allowed\":false,\"reason\":\"not_in_channel\",\"message\":\"bob is not in general\"}"
                    : "{\"allowed\":true}";
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        callback.start();
        try {
            serve(Map.of("BUZZ_ACCESS_POLICY", "http",
                    "BUZZ_ACCESS_URL", "http://127.0.0.1:" + callback.getAddress().getPort() + "/access",
                    "RELAY_URL", "ws://127.0.0.1:" + freePort()));

            SignedClient.Reply bob = client.schedule(BOB, SignedClient.message(BOB, "general",
                    dueIn(Duration.ofHours(1)), "let me in"));
            SignedClient.Reply alice = client.schedule(ALICE, SignedClient.message(ALICE, "general",
                    dueIn(Duration.ofHours(1)), "I am a member"));

            assertThat(sidecar.injector().getInstance(AccessPolicy.class)).isInstanceOf(CallbackAccessPolicy.class);
            assertThat(bob.status()).as(bob.text()).isEqualTo(403);
            assertThat(bob.error()).isEqualTo("not_in_channel");
            assertThat(alice.status()).as(alice.text()).isEqualTo(201);
            assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE owner = ?", BOB.publicKey().hex()))
                    .isZero();
            assertThat(questions).contains("POST {\"pubkey\":\"" + BOB.publicKey().hex()
                    + "\",\"channel\":\"general\",\"kind\":9}");
        } finally {
            callback.stop(0);
        }
    }

    @Test
    void nip29Policy_testRelaysGroupState_admitsAMemberRefusesANonMemberAndClosesTheFeedOnShutdown()
            throws Exception {
        try (Nip29TestRelay relay = Nip29TestRelay.start()) {
            relay.createGroup("crew", true);
            relay.addMember("crew", ALICE.publicKey());
            serve(Map.of("BUZZ_ACCESS_POLICY", "nip29", "RELAY_URL", relay.url().toString(),
                    "BUZZ_RELAY_PUBKEY", relay.relayPubkey().hex()));
            GroupFeed feed = sidecar.injector().getInstance(GroupFeed.class);
            Poll.until("the NIP-29 feed to sync", WAIT, feed::inSync);

            SignedClient.Reply bob = client.schedule(BOB, SignedClient.message(BOB, "crew",
                    dueIn(Duration.ofHours(1)), "let me in"));
            SignedClient.Reply alice = client.schedule(ALICE, SignedClient.message(ALICE, "crew",
                    dueIn(Duration.ofHours(1)), "crew meeting"));
            sidecar.close(); // before the relay, so the feed does not see it go

            assertThat(bob.status()).as(bob.text()).isEqualTo(403);
            assertThat(bob.error()).isEqualTo("not_in_channel");
            assertThat(alice.status()).as(alice.text()).isEqualTo(201);
            assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE owner = ?", BOB.publicKey().hex()))
                    .isZero();
            assertThat(feed.inSync()).as("the feed is closed with the sidecar").isFalse();
        }
    }

    @Test
    void nip29Policy_relayPubkeyNotTheRelays_answers503NamingTheKeyThatSignsTheGroupState() throws Exception {
        try (Nip29TestRelay relay = Nip29TestRelay.start()) {
            relay.createGroup("crew", true);
            relay.addMember("crew", ALICE.publicKey());
            serve(Map.of("BUZZ_ACCESS_POLICY", "nip29", "RELAY_URL", relay.url().toString(),
                    "BUZZ_RELAY_PUBKEY", OPERATOR.publicKey().hex()));
            NostrEvent event = SignedClient.message(ALICE, "crew", dueIn(Duration.ofHours(1)), "crew meeting");
            Poll.until("admission to say why the group state is not trusted", WAIT,
                    () -> client.schedule(ALICE, event).text().contains("no group state signed by"));

            SignedClient.Reply alice = client.schedule(ALICE, event);
            GroupFeed feed = sidecar.injector().getInstance(GroupFeed.class);
            sidecar.close(); // before the relay, so the feed does not see it go

            assertThat(alice.status()).as(alice.text()).isEqualTo(503);
            assertThat(alice.json().get("message").asText())
                    .contains("the relay has no group state signed by " + OPERATOR.publicKey().hex())
                    .contains("group state on the relay is signed by [" + relay.relayPubkey().hex() + "]");
            assertThat(feed.inSync()).isFalse();
            assertThat(db.queryLong("SELECT count(*) FROM scheduled_message")).isZero();
        }
    }

    @Test
    void nip29Policy_600GroupsBehindASilent500CapWithSelfApartFromPubkey_admitsMembersOfEveryGroup()
            throws Exception {
        SecretKey contact = new SecretKey("cc".repeat(32));
        try (Nip29TestRelay relay = Nip29TestRelay.start(mode -> mode.env("TEST_RELAY_MAX_RESULTS", "500")
                .env("TEST_RELAY_NIP29_CONTACT_PUBKEY", contact.publicKey().hex())
                .env("TEST_RELAY_NIP29_GROUP_COUNT", "600")
                .env("TEST_RELAY_NIP29_GROUP_MEMBERS", ALICE.publicKey().hex()))) {
            serve(Map.of("BUZZ_ACCESS_POLICY", "nip29", "RELAY_URL", relay.url().toString()));
            GroupFeed feed = sidecar.injector().getInstance(GroupFeed.class);
            Poll.until("the NIP-29 feed to sync", WAIT, feed::inSync);

            List<SignedClient.Reply> members = List.of("g0001", "g0300", "g0600").stream()
                    .map(group -> client.schedule(ALICE, SignedClient.message(ALICE, group,
                            dueIn(Duration.ofHours(1)), "hello " + group)))
                    .toList();
            SignedClient.Reply bob = client.schedule(BOB, SignedClient.message(BOB, "g0001",
                    dueIn(Duration.ofHours(1)), "let me in"));
            sidecar.close(); // before the relay, so the feed does not see it go

            assertThat(relay.relay().events("{\"kinds\":[39002]}")).as("the relay caps each filter").hasSize(500);
            assertThat(members).allSatisfy(reply -> assertThat(reply.status()).as(reply.text()).isEqualTo(201));
            assertThat(bob.status()).as(bob.text()).isEqualTo(403);
            assertThat(bob.error()).isEqualTo("not_in_channel");
            assertThat(db.queryLong("SELECT count(*) FROM scheduled_message")).isEqualTo(3);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}

package buzz.scheduled.bootstrap.access;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.Sidecar;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A running sidecar in the state an operator inspects: the real Node relay (refusing {@link #BOB}'s events with
 * {@code restricted: not a member of this channel}), real PostgreSQL, and after {@link #populate()}: three of
 * {@link #ALICE}'s messages published, one of Bob's failed {@code relay_rejected}, one of Alice's scheduled an
 * hour ahead and one cancelled. {@link #OPERATOR} is in {@code RELAY_OPERATOR_PUBKEYS}.
 */
final class OperatorViewStack implements AutoCloseable {
    static final SecretKey OPERATOR = new SecretKey("0c".repeat(32));
    static final SecretKey ALICE = new SecretKey("a1".repeat(32));
    static final SecretKey BOB = new SecretKey("b2".repeat(32));
    /** Every message's content contains it; no operator answer may. */
    static final String SECRET_CONTENT = "the-content-operators-never-see";
    static final String REFUSAL = "restricted: not a member of this channel";
    static final int PUBLISHED = 3;
    private static final Duration WAIT = Duration.ofSeconds(40);

    final TestRelay relay;
    final Sidecar sidecar;
    final SignedClient client;
    final List<String> published = new ArrayList<>();
    String failed;
    String pending;
    String cancelled;

    private OperatorViewStack(TestRelay relay, Sidecar sidecar, SignedClient client) {
        this.relay = relay;
        this.sidecar = sidecar;
        this.client = client;
    }

    /** Starts the relay and the sidecar on {@code db} with {@code extra} environment variables. */
    static OperatorViewStack start(ScratchDatabaseExtension db, Path dataDir, Map<String, String> extra)
            throws Exception {
        return start(db, dataDir, extra, Map.of("TEST_RELAY_RESTRICTED_PUBKEYS", BOB.publicKey().hex()));
    }

    /**
     * Starts the relay with {@code relayEnvironment} for its {@code restricted-pubkeys.js} plugin (which authors it
     * refuses, or answers {@code rate-limited:} once) and the sidecar on {@code db} with {@code extra} environment
     * variables.
     */
    static OperatorViewStack start(ScratchDatabaseExtension db, Path dataDir, Map<String, String> extra,
                                   Map<String, String> relayEnvironment) throws Exception {
        TestRelay.Builder builder = TestRelay.builder().plugin("plugins/restricted-pubkeys.js");
        relayEnvironment.forEach(builder::env);
        TestRelay relay = builder.start();
        int port = freePort();
        Map<String, String> environment = new HashMap<>(Map.of("DATABASE_URL", db.jdbcUrl(),
                "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(port),
                "BUZZ_SCHEDULED_MESSAGES", "on", "RELAY_URL", relay.url().toString(),
                "RELAY_OPERATOR_PUBKEYS", OPERATOR.publicKey().hex()));
        environment.putAll(extra);
        Sidecar sidecar = new Sidecar();
        try {
            sidecar.start(SidecarConfig.fromEnvironment(environment));
        } catch (Exception | Error e) {
            relay.close();
            throw e;
        }
        return new OperatorViewStack(relay, sidecar,
                new SignedClient(sidecar.httpPort(), URI.create("http://127.0.0.1:" + port)));
    }

    /** Schedules the messages and waits until the due ones ended. */
    OperatorViewStack populate() {
        // Far enough ahead that six creates on a loaded machine are all admitted before it.
        Instant due = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(15);
        for (int i = 0; i < PUBLISHED; i++) {
            published.add(scheduled(ALICE, "general", due, "published " + i));
        }
        failed = scheduled(BOB, "general", due, "refused");
        pending = scheduled(ALICE, "later", due.plus(Duration.ofHours(1)), "pending");
        cancelled = scheduled(ALICE, "later", due.plus(Duration.ofHours(2)), "cancelled");
        SignedClient.Reply cancel = client.send(ALICE, "DELETE", "/v1/scheduled-messages/" + cancelled, null);
        assertThat(cancel.status()).as(cancel.text()).isEqualTo(200);
        for (String id : published) {
            awaitState(ALICE, id, "published");
        }
        awaitState(BOB, failed, "failed");
        return this;
    }

    /**
     * Schedules one of {@code author}'s messages in "general", due in a few seconds, and waits until it ended
     * {@code state}.
     */
    String delivered(SecretKey author, String label, String state) {
        String id = scheduled(author, "general", Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(10), label);
        awaitState(author, id, state);
        return id;
    }

    /** A refused create (its due time is in the past): {@code 422 time_in_past}. */
    SignedClient.Reply refusedCreate() {
        return client.schedule(ALICE, SignedClient.message(ALICE, "general", Instant.now().minusSeconds(3600),
                SECRET_CONTENT));
    }

    private String scheduled(SecretKey author, String channel, Instant due, String label) {
        SignedClient.Reply reply = client.schedule(author, SignedClient.message(author, channel, due,
                SECRET_CONTENT + " " + label));
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply.json().get("id").asText();
    }

    private void awaitState(SecretKey owner, String id, String state) {
        Poll.until(id + " to be " + state, WAIT,
                () -> state.equals(client.item(owner, id).json().get("state").asText()));
    }

    /** {@code GET /metrics}. */
    String metrics() {
        SignedClient.Reply reply = client.send(null, "GET", "/metrics", null);
        assertThat(reply.status()).isEqualTo(200);
        return reply.text();
    }

    /** The value of the sample {@code series} (name with its labels, as written) in Prometheus text. */
    static double sample(String metrics, String series) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError("no sample " + series + " in:\n" + metrics);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        try {
            sidecar.close();
        } finally {
            relay.close();
        }
    }
}

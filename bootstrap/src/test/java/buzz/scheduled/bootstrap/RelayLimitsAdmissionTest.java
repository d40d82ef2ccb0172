package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.Nip11RelayLimits;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} beside a relay that states (and enforces) a NIP-11 limitation — the test relay's limitation mode —
 * through the real HTTP API on real PostgreSQL: admission refuses what the relay would refuse, naming the relay's
 * limit, and stores nothing; what fits exactly is admitted and the relay takes it.
 */
class RelayLimitsAdmissionTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    @TempDir
    static Path dataDir;

    private static final int MAX_CONTENT = 600;
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The ["EVENT",…] message of a kind-9 {@code general} event with empty content: id, pubkey, sig, tags, time. */
    private static int emptyMessageBytes;
    private static int maxMessage;

    private static SidecarBesideRelay stack;
    private static TestRelay relay;
    private static Sidecar sidecar;
    private static OwnerClient owner;

    @BeforeAll
    static void start() throws Exception {
        // The size of an empty message is the same for every key: measured with a throw-away signer.
        emptyMessageBytes = messageBytes(new OwnerClient(0).message("general", "", Duration.ofHours(1)));
        maxMessage = emptyMessageBytes + 300;
        stack = SidecarBesideRelay.start(TestRelay.builder().plugin("plugins/limitation.js").env(
                "TEST_RELAY_LIMITATION", "{\"max_message_length\":" + maxMessage + ",\"max_content_length\":"
                        + MAX_CONTENT + ",\"created_at_upper_limit\":60}"), DATABASE.jdbcUrl(), dataDir, Map.of());
        relay = stack.relay();
        sidecar = stack.sidecar();
        owner = stack.owner();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    private static int messageBytes(NostrEvent event) {
        return ("[\"EVENT\"," + NostrEventJson.write(event) + "]").getBytes(StandardCharsets.UTF_8).length;
    }

    private static long stored(NostrEvent event) {
        return DATABASE.queryLong("SELECT count(*) FROM scheduled_message WHERE event_id = ?", event.id().hex());
    }

    @Test
    void start_relayStatesALimitation_theRelayLimitsPortKnowsItBeforeTheApiAnswers() {
        RelayLimits limits = sidecar.injector().getInstance(RelayLimits.class);

        assertThat(limits).isInstanceOf(Nip11RelayLimits.class);
        assertThat(limits.current().maxMessageLength()).isEqualTo(OptionalInt.of(maxMessage));
        assertThat(limits.current().maxContentLength()).isEqualTo(OptionalInt.of(MAX_CONTENT));
    }

    @Test
    void create_eventMessageOneByteOverTheRelaysMaxMessageLength_is413TooLargeNamingItAndStoresNothing()
            throws Exception {
        NostrEvent event = owner.message("general", "x".repeat(301), Duration.ofHours(1));

        OwnerClient.Reply reply = owner.schedule(event);

        assertThat(reply.status()).as(reply.text()).isEqualTo(413);
        assertThat(reply.json().get("error").asText()).isEqualTo("too_large");
        assertThat(reply.json().get("message").asText()).isEqualTo("the event's [\"EVENT\",…] message is "
                + (maxMessage + 1) + " bytes; the relay accepts messages of at most " + maxMessage
                + " bytes (its NIP-11 max_message_length)");
        assertThat(stored(event)).isZero();
    }

    @Test
    void create_contentOverTheRelaysMaxContentLength_is413TooLargeNamingItAndStoresNothing() throws Exception {
        NostrEvent event = owner.message("general", "y".repeat(MAX_CONTENT + 1), Duration.ofHours(1));

        OwnerClient.Reply reply = owner.schedule(event);

        assertThat(reply.status()).as(reply.text()).isEqualTo(413);
        assertThat(reply.json().get("error").asText()).isEqualTo("too_large");
        assertThat(reply.json().get("message").asText()).isEqualTo("content is 601 bytes; the relay accepts at most "
                + MAX_CONTENT + " bytes of content (its NIP-11 max_content_length)");
        assertThat(stored(event)).isZero();
    }

    @Test
    void create_eventMessageExactlyAtTheLimit_isAdmittedAndTheRelayTakesItWhenDue() throws Exception {
        NostrEvent event = owner.message("general", "z".repeat(300), Duration.ofSeconds(2));

        OwnerClient.Reply reply = owner.schedule(event);
        Poll.until("the relay to store the event", WAIT, () -> relay.event(event.id().hex()).isPresent());

        assertThat(messageBytes(event)).isEqualTo(maxMessage);
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        Poll.until("the message to be published", WAIT, () -> {
            try {
                return "published".equals(owner.get(reply.json().get("id").asText()).json().get("state").asText());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void sendNow_newEventBeyondTheRelaysCreatedAtUpperLimit_is422TimeTooFarAndKeepsTheStoredRevision()
            throws Exception {
        OwnerClient.Reply created = owner.schedule(owner.message("general", "in an hour", Duration.ofHours(1)));
        String id = created.json().get("id").asText();

        OwnerClient.Reply reply = owner.sendNow(id, owner.message("general", "now, please", Duration.ofSeconds(120)));

        assertThat(created.status()).as(created.text()).isEqualTo(201);
        assertThat(reply.status()).as(reply.text()).isEqualTo(422);
        assertThat(reply.json().get("error").asText()).isEqualTo("time_too_far");
        assertThat(reply.json().get("message").asText())
                .endsWith("an event sent now may be at most 60 s ahead (the relay's NIP-11 created_at_upper_limit)");
        assertThat(owner.get(id).json().get("revision").asInt()).isEqualTo(1);
    }
}

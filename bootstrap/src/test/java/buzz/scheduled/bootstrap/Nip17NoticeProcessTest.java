package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.nip29.Nip29TestRelay;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * NIP-17 notices end to end: {@code serve} on PostgreSQL with {@code BUZZ_NOTICES=on} and the {@code nip29} access
 * policy against the project's Node relay with NIP-29 groups. Two owners lose access to their channel before their
 * messages are due, so both fail {@code access_denied} at delivery; a third owner's message is published. The failed
 * owners get a gift-wrapped notice that nostr-tools' own {@code nip17.unwrapEvent} opens — one at the inbox relay his
 * kind 10050 names, the other, who published none, at the sidecar's relay — naming the message, channel, event, due
 * time and the reason, and nothing of the other owner; the third owner (notices: failures, the default) gets none.
 */
class Nip17NoticeProcessTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @TempDir
    Path work;

    private final SecretKey bob = SecretKey.generate(new SecureRandom());
    private final SecretKey dave = SecretKey.generate(new SecureRandom());
    private final SecretKey carol = SecretKey.generate(new SecureRandom());

    private static String state(String id) {
        return db.queryColumn("SELECT state || coalesce(':' || reason, '') FROM scheduled_message WHERE id = ?",
                UUID.fromString(id)).get(0);
    }

    private static List<String> wrapsFor(TestRelay relay, SecretKey owner) {
        return relay.events("{\"kinds\":[1059],\"#p\":[\"" + owner.publicKey().hex() + "\"]}");
    }

    private static JsonNode unwrap(SecretKey owner, List<String> wraps) throws Exception {
        List<JsonNode> events = new java.util.ArrayList<>();
        for (String wrap : wraps) {
            events.add(JSON.readTree(wrap));
        }
        return NostrToolsClient.crypto(Map.of("op", "unwrap", "secret_key", owner.hex(), "wraps", events));
    }

    private static String scheduled(OwnerClient client, NostrEvent event) throws Exception {
        OwnerClient.Reply reply = Poll.until("admission (the NIP-29 feed in sync)", WAIT, () -> client.schedule(event),
                answer -> answer.status() != 503);
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply.json().path("id").asText();
    }

    @Test
    void failureAtDelivery_isToldByANoticeNostrToolsUnwraps_atTheInboxRelayOrTheSidecarsRelay_andAPublicationIsNot()
            throws Exception {
        db.truncateAllTables();
        try (Nip29TestRelay relay = Nip29TestRelay.start(); TestRelay inbox = TestRelay.start()) {
            relay.createGroup("lobby", false);
            relay.createGroup("open-room", false);
            PublishResult inboxList = relay.publish(Nip29TestRelay.sign(bob, 10050,
                    List.of(List.of("relay", inbox.url().toString())), ""));
            assertThat(inboxList).isInstanceOf(PublishResult.Published.class);
            int port = ServeProcesses.freePort();
            Path log = work.resolve("serve.log");
            Process serve = processes.start(Map.of("DATABASE_URL", db.jdbcUrl(), "BUZZ_DATA_DIR",
                    work.resolve("var").toString(), "HTTP_PORT", Integer.toString(port), "BUZZ_SCHEDULED_MESSAGES",
                    "on", "BUZZ_NOTICES", "on", "BUZZ_NOTICE_PRIVATE_RELAYS", "on", "RELAY_URL",
                    relay.url().toString(), "BUZZ_ACCESS_POLICY", "nip29", "BUZZ_RELAY_PUBKEY",
                    relay.relayPubkey().hex()), log);
            ServeProcesses.awaitHealthy(serve, port, log);
            String sidecar;
            try (HttpClient http = HttpClient.newHttpClient()) {
                sidecar = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/v1/info")).build(), HttpResponse.BodyHandlers.ofString()).body()).path("pubkey").asText();
            }
            OwnerClient bobClient = new OwnerClient(port, bob);
            OwnerClient daveClient = new OwnerClient(port, dave);
            OwnerClient carolClient = new OwnerClient(port, carol);
            long due = Instant.now().getEpochSecond() + 10;
            NostrEvent bobsEvent = bobClient.messageAt("lobby", "bob's message", due);
            String bobs = scheduled(bobClient, bobsEvent);
            String daves = scheduled(daveClient, daveClient.messageAt("lobby", "dave's message", due));
            String carols = scheduled(carolClient, carolClient.messageAt("open-room", "carol's message", due));
            OwnerClient.Reply carolsSettings = carolClient.settings();

            relay.editGroup("lobby", "closed");
            Poll.until("bob's and dave's messages to fail and carol's to be published", WAIT,
                    () -> List.of(state(bobs), state(daves), state(carols)),
                    states -> states.equals(List.of("failed:access_denied", "failed:access_denied", "published")));
            List<String> bobsWraps = Poll.until("bob's notice at his inbox relay", WAIT, () -> wrapsFor(inbox, bob),
                    found -> !found.isEmpty());
            List<String> davesWraps = Poll.until("dave's notice at the sidecar's relay", WAIT,
                    () -> wrapsFor(relay.relay(), dave), found -> !found.isEmpty());
            // Nothing is left queued, and two more notice passes (2 s apart) ran: a notice to carol would be out.
            Poll.until("the outbox to be empty", WAIT,
                    () -> db.queryLong("SELECT count(*) FROM notice_outbox WHERE sent_at IS NULL") == 0);
            Instant settled = Instant.now().plusSeconds(5);
            Poll.until("two more notice passes", WAIT, () -> Instant.now().isAfter(settled));

            assertThat(carolsSettings.json().path("notices").asText()).isEqualTo("failures");
            assertThat(carolsSettings.json().path("notices_enabled").asBoolean()).isTrue();
            JsonNode bobsNotice = unwrap(bob, bobsWraps);
            assertThat(bobsNotice.path("errors")).as(bobsNotice.toString()).isEmpty();
            JsonNode rumor = bobsNotice.path("rumors").get(0);
            assertThat(rumor.path("kind").asInt()).isEqualTo(14);
            assertThat(rumor.path("pubkey").asText()).isEqualTo(sidecar);
            assertThat(rumor.path("content").asText()).contains(bobs, "lobby", bobsEvent.id().hex(),
                    UTC.format(Instant.ofEpochSecond(due)), "access_denied", "no longer allowed to post")
                    .doesNotContain(daves).doesNotContain(carols);
            assertThat(unwrap(bob, bobsWraps).path("rumors")).hasSize(bobsWraps.size());
            JsonNode attempts = bobClient.attempts(bobs).json();
            String lastWords = attempts.get(attempts.size() - 1).path("relay_message").asText();
            assertThat(lastWords).as(attempts.toString()).isNotBlank();
            assertThat(rumor.path("content").asText()).as("the notice's words are the attempts' words")
                    .contains("\"" + lastWords + "\"");
            JsonNode davesNotice = unwrap(dave, davesWraps);
            assertThat(davesNotice.path("rumors").get(0).path("content").asText()).contains(daves)
                    .doesNotContain(bobs);
            assertThat(unwrap(bob, davesWraps).path("rumors")).as("bob cannot open dave's notice").isEmpty();
            assertThat(wrapsFor(relay.relay(), bob)).as("bob's notice goes to his inbox only").isEmpty();
            assertThat(wrapsFor(relay.relay(), carol)).isEmpty();
            assertThat(wrapsFor(inbox, carol)).isEmpty();
            assertThat(db.queryLong("SELECT count(*) FROM notice_outbox WHERE owner = ?", carol.publicKey().hex()))
                    .isZero();
        }
    }
}

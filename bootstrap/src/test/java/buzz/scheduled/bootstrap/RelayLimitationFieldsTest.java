package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.ProofOfWork;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} beside a relay whose NIP-11 {@code limitation} states the fields that decide acceptance beyond size
 * (the test relay's limitation mode, which enforces them too): {@code max_event_tags: 20},
 * {@code min_pow_difficulty: 8} and {@code created_at_lower_limit: 0}, plus {@code auth_required} and
 * {@code restricted_writes}. Through the real HTTP API on real PostgreSQL, what the relay would refuse is refused at
 * admission naming the relay's limit (docs/failure-scenarios.md F36), what it takes is admitted and published, a
 * zero limit is no limit, and {@code /v1/info} advertises what applies.
 */
class RelayLimitationFieldsTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    @TempDir
    static Path dataDir;

    private static final int MAX_TAGS = 20;
    private static final int MIN_POW = 8;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static SidecarBesideRelay stack;
    private static TestRelay relay;
    private static OwnerClient owner;

    @BeforeAll
    static void start() throws Exception {
        stack = SidecarBesideRelay.start(TestRelay.builder().plugin("plugins/limitation.js")
                .env("TEST_RELAY_LIMITATION", "{\"max_event_tags\":" + MAX_TAGS + ",\"min_pow_difficulty\":" + MIN_POW
                        + ",\"created_at_lower_limit\":0,\"max_content_length\":0,\"auth_required\":false,"
                        + "\"restricted_writes\":true}"), DATABASE.jdbcUrl(), dataDir, Map.of());
        relay = stack.relay();
        owner = stack.owner();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    private static long stored(NostrEvent event) {
        return DATABASE.queryLong("SELECT count(*) FROM scheduled_message WHERE event_id = ?", event.id().hex());
    }

    private static List<List<String>> topics(int count) {
        List<List<String>> tags = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tags.add(List.of("t", "topic-" + i));
        }
        return tags;
    }

    private static void awaitPublished(String id) {
        stack.awaitPublished(id, WAIT);
    }

    @Test
    void create_thirtyTagsAtARelayWithMaxEventTagsTwenty_is413TooLargeAtAdmissionNamingItAndStoresNothing()
            throws Exception {
        NostrEvent event = owner.minedMessage("general", "thirty tags", Duration.ofHours(1), MIN_POW, topics(28));

        OwnerClient.Reply reply = owner.schedule(event);

        assertThat(reply.status()).as(reply.text()).isEqualTo(413);
        assertThat(reply.json().get("error").asText()).isEqualTo("too_large");
        assertThat(reply.json().get("message").asText()).isEqualTo("the event has 30 tags; the relay accepts at most "
                + MAX_TAGS + " tags (its NIP-11 max_event_tags)");
        assertThat(stored(event)).isZero();
    }

    @Test
    void create_withoutTheRelaysProofOfWork_is422PowTooLow_andMinedToItIsPublished() throws Exception {
        NostrEvent unmined = owner.message("general", "no work done", Duration.ofHours(1));
        while (ProofOfWork.leadingZeroBits(unmined.id()) >= MIN_POW) {
            unmined = owner.message("general", "no work done", Duration.ofHours(1));
        }
        NostrEvent mined = owner.minedMessage("general", "worked for it", Duration.ofSeconds(2), MIN_POW);

        OwnerClient.Reply refused = owner.schedule(unmined);
        OwnerClient.Reply admitted = owner.schedule(mined);

        assertThat(refused.status()).as(refused.text()).isEqualTo(422);
        assertThat(refused.json().get("error").asText()).isEqualTo("pow_too_low");
        assertThat(refused.json().get("message").asText()).contains("the relay requires at least " + MIN_POW
                + " (its NIP-11 min_pow_difficulty)");
        assertThat(stored(unmined)).isZero();
        assertThat(admitted.status()).as(admitted.text()).isEqualTo(201);
        awaitPublished(admitted.json().get("id").asText());
        assertThat(relay.event(mined.id().hex())).isPresent();
    }

    @Test
    void create_twentyTagsMined_isAdmittedAndTheRelayTakesItWhenDue() throws Exception {
        NostrEvent event = owner.minedMessage("general", "twenty tags", Duration.ofSeconds(2), MIN_POW, topics(18));

        OwnerClient.Reply reply = owner.schedule(event);

        assertThat(event.tags()).as("h, nonce and 18 topics").hasSize(MAX_TAGS);
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        awaitPublished(reply.json().get("id").asText());
        assertThat(relay.event(event.id().hex())).isPresent();
    }

    @Test
    void sendNow_eventSignedASecondAgoAtARelayWithCreatedAtLowerLimitZero_isAcceptedAndPublished() throws Exception {
        OwnerClient.Reply created = owner.schedule(owner.minedMessage("general", "in an hour", Duration.ofHours(1),
                MIN_POW));
        String id = created.json().get("id").asText();
        NostrEvent justNow = owner.minedMessage("general", "now, please", Duration.ofSeconds(-1), MIN_POW);

        OwnerClient.Reply reply = owner.sendNow(id, justNow);

        assertThat(created.status()).as(created.text()).isEqualTo(201);
        assertThat(reply.status()).as(reply.text()).isEqualTo(202);
        awaitPublished(id);
        assertThat(relay.event(justNow.id().hex())).isPresent();
    }

    @Test
    void info_advertisesTheRelaysTagLimitAndProofOfWork_andNoLimitForAZeroOne() throws Exception {
        OwnerClient.Reply info = owner.info();

        assertThat(info.status()).isEqualTo(200);
        assertThat(info.json().get("limitation").get("max_event_tags").asInt()).isEqualTo(MAX_TAGS);
        assertThat(info.json().get("limitation").get("min_pow_difficulty").asInt()).isEqualTo(MIN_POW);
        assertThat(info.json().get("limitation").get("max_content_bytes").asInt()).as("max_content_length 0: none")
                .isEqualTo(256 * 1024);
    }
}

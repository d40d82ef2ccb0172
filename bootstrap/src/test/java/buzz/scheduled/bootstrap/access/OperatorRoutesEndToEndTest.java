package buzz.scheduled.bootstrap.access;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.access.AccessStack.Policy;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator routes over the real HTTP API, PostgreSQL and relay: only an operator reaches them; a channel
 * deleted there fails its pending items, purges their payloads (checked in the database), refuses later
 * admissions, and nothing for it reaches the relay; owner purges delete rows.
 */
class OperatorRoutesEndToEndTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final SecretKey ALICE = new SecretKey("a1".repeat(32));
    private static final SecretKey BOB = new SecretKey("b2".repeat(32));
    private static final Duration WAIT = Duration.ofSeconds(30);

    private TestRelay relay;
    private AccessStack sidecar;

    @BeforeEach
    void start() {
        db.truncateAllTables();
        relay = TestRelay.start();
        sidecar = AccessStack.start(db.dataSource(), db.jdbcUrl(), relay.url(), Policy.RELAY, Optional.empty(),
                Duration.ofSeconds(900));
    }

    @AfterEach
    void stop() {
        sidecar.close();
        relay.close();
    }

    private String scheduled(SecretKey author, NostrEvent event) {
        SignedClient.Reply reply = sidecar.client.schedule(author, event);
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply.json().get("id").asText();
    }

    private ScheduledMessage stored(String id) {
        return sidecar.store.find(ScheduleId.parse(id)).orElseThrow();
    }

    @Test
    void operatorRoutes_refuseTheUnauthenticatedAndOwners() {
        String id = scheduled(ALICE, SignedClient.message(ALICE, "general", Instant.now().plusSeconds(600), "hi"));
        List<String[]> routes = List.of(
                new String[] {"GET", "/v1/reservations"},
                new String[] {"POST", "/v1/admin/channels/general/deleted"},
                new String[] {"POST", "/v1/admin/channels/general/members/" + ALICE.publicKey().hex() + "/removed"},
                new String[] {"DELETE", "/v1/admin/owners/" + ALICE.publicKey().hex()},
                new String[] {"DELETE", "/v1/admin/scheduled-messages?confirm=all"});

        for (String[] route : routes) {
            SignedClient.Reply anonymous = sidecar.client.send(null, route[0], route[1], null);
            SignedClient.Reply owner = sidecar.client.send(ALICE, route[0], route[1], null);

            assertThat(anonymous.status()).as(route[1]).isEqualTo(401);
            assertThat(anonymous.error()).isEqualTo("unauthorized");
            assertThat(owner.status()).as(route[1]).isEqualTo(403);
            assertThat(owner.error()).isEqualTo("forbidden");
        }
        assertThat(stored(id).state().wireName()).isEqualTo("scheduled");
        assertThat(db.queryLong("SELECT count(*) FROM channel_tombstone")).isZero();
    }

    @Test
    void channelDeleted_byTheOperator_failsPendingPurgesPayloadsRefusesAdmissionAndPublishesNothing() {
        Instant due = Instant.now().plusSeconds(4).truncatedTo(ChronoUnit.SECONDS);
        NostrEvent alices = SignedClient.message(ALICE, "general", due, "to be deleted");
        NostrEvent bobs = SignedClient.message(BOB, "general", due.plusSeconds(1), "me too");
        NostrEvent elsewhere = SignedClient.message(BOB, "random", due, "still delivered");
        String alicesId = scheduled(ALICE, alices);
        String bobsId = scheduled(BOB, bobs);
        String elsewhereId = scheduled(BOB, elsewhere);

        SignedClient.Reply deleted = sidecar.client.send(AccessStack.OPERATOR, "POST",
                "/v1/admin/channels/general/deleted", null);
        SignedClient.Reply later = sidecar.client.schedule(ALICE,
                SignedClient.message(ALICE, "general", due.plusSeconds(60), "anyone?"));
        Poll.until("the other channel's message to be published", WAIT,
                () -> stored(elsewhereId).state().wireName().equals("published"));
        Poll.until("well past the due time", WAIT, () -> Instant.now().isAfter(due.plusSeconds(3)));

        assertThat(deleted.status()).as(deleted.text()).isEqualTo(200);
        assertThat(deleted.text()).isEqualTo("{\"channel\":\"general\",\"failed\":2,\"purged\":2,\"in_flight\":0,"
                + "\"newly_deleted\":true}");
        assertThat(stored(alicesId).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(stored(bobsId).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE channel = 'general'"
                + " AND event_json IS NOT NULL")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message_revision r JOIN scheduled_message m"
                + " ON m.id = r.message_id WHERE m.channel = 'general' AND r.event_json IS NOT NULL")).isZero();
        assertThat(later.status()).isEqualTo(422);
        assertThat(later.error()).isEqualTo("channel_not_found");
        assertThat(relay.event(alices.id().hex())).isEmpty();
        assertThat(relay.event(bobs.id().hex())).isEmpty();
        assertThat(relay.event(elsewhere.id().hex())).isPresent();
    }

    @Test
    void memberRemovedAndOwnerPurge_byTheOperator_failAndDeleteExactlyTheirRows() {
        String alicesGeneral = scheduled(ALICE, SignedClient.message(ALICE, "general",
                Instant.now().plusSeconds(600), "one"));
        String alicesRandom = scheduled(ALICE, SignedClient.message(ALICE, "random",
                Instant.now().plusSeconds(600), "two"));
        String bobs = scheduled(BOB, SignedClient.message(BOB, "general", Instant.now().plusSeconds(600), "three"));

        SignedClient.Reply removed = sidecar.client.send(AccessStack.OPERATOR, "POST",
                "/v1/admin/channels/general/members/" + ALICE.publicKey().hex() + "/removed", null);
        ScheduledMessage afterRemoval = stored(alicesGeneral);
        SignedClient.Reply purged = sidecar.client.send(AccessStack.OPERATOR, "DELETE",
                "/v1/admin/owners/" + ALICE.publicKey().hex(), null);

        assertThat(removed.text()).isEqualTo("{\"channel\":\"general\",\"pubkey\":\"" + ALICE.publicKey().hex()
                + "\",\"failed\":1,\"in_flight\":0}");
        assertThat(afterRemoval.failureReason()).contains(FailureReason.MEMBER_REMOVED);
        assertThat(purged.text()).isEqualTo("{\"owner\":\"" + ALICE.publicKey().hex() + "\",\"deleted\":2}");
        assertThat(sidecar.store.find(ScheduleId.parse(alicesRandom))).isEmpty();
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE owner = ?", ALICE.publicKey().hex()))
                .isZero();
        assertThat(db.queryLong("SELECT count(*) FROM idempotency_key WHERE owner = ?", ALICE.publicKey().hex()))
                .isZero();
        assertThat(stored(bobs).state().wireName()).isEqualTo("scheduled");
    }
}

package buzz.scheduled.bootstrap.access;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.nip29.Nip29TestRelay;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.access.AccessStack.Policy;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code BUZZ_ACCESS_POLICY=nip29} end to end: the real test relay serves relay-signed NIP-29 group state
 * (39000/39001/39002) and accepts moderation from the group admin; the sidecar (real PostgreSQL, HTTP with
 * BIP-340 NIP-98, dispatcher) admits, checks again before sending, and carries out removals and deletions.
 */
class Nip29AccessTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final SecretKey ALICE = new SecretKey("a1".repeat(32));
    private static final SecretKey BOB = new SecretKey("b2".repeat(32));
    private static final Duration WAIT = Duration.ofSeconds(30);

    private Nip29TestRelay relay;
    private AccessStack sidecar;

    @BeforeEach
    void start() {
        db.truncateAllTables();
        relay = Nip29TestRelay.start();
    }

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
        relay.close();
    }

    private void startSidecar(Optional<buzz.scheduled.domain.nostr.PublicKey> relayKey) {
        sidecar = AccessStack.start(db.dataSource(), db.jdbcUrl(), relay.url(), Policy.NIP29, relayKey,
                Duration.ofSeconds(900));
        Poll.until("the NIP-29 feed to sync", WAIT, () -> sidecar.feed.orElseThrow().inSync());
    }

    private static Instant dueIn(int seconds) {
        return Instant.now().plusSeconds(seconds).truncatedTo(ChronoUnit.SECONDS);
    }

    private String scheduled(SecretKey author, NostrEvent event) {
        SignedClient.Reply reply = sidecar.client.schedule(author, event);
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply.json().get("id").asText();
    }

    private ScheduledMessage stored(String id) {
        return sidecar.store.find(ScheduleId.parse(id)).orElseThrow();
    }

    private long payloadsStored(String channel) {
        return db.queryLong("SELECT (SELECT count(*) FROM scheduled_message WHERE channel = ? AND event_json IS NOT NULL)"
                + " + (SELECT count(*) FROM scheduled_message_revision r JOIN scheduled_message m ON m.id = r.message_id"
                + " WHERE m.channel = ? AND r.event_json IS NOT NULL)", channel, channel);
    }

    private static void waitUntilPast(Instant instant) {
        Poll.until("the clock to pass " + instant, WAIT, () -> Instant.now().isAfter(instant));
    }

    @Test
    void member_removedBeforeTheDueTime_failsMemberRemovedAndNothingIsPublished() {
        relay.createGroup("crew", true);
        relay.addMember("crew", ALICE.publicKey());
        startSidecar(Optional.empty()); // the relay's key from its NIP-11 document
        Instant due = dueIn(4);
        NostrEvent event = SignedClient.message(ALICE, "crew", due, "see you at noon");
        String id = scheduled(ALICE, event);

        relay.removeMember("crew", ALICE.publicKey());
        Poll.until("the removal to fail the message", WAIT, () -> stored(id).state().terminal());
        waitUntilPast(due.plusSeconds(3));

        assertThat(stored(id).failureReason()).contains(FailureReason.MEMBER_REMOVED);
        assertThat(stored(id).attempts()).isZero();
        assertThat(payloadsStored("crew")).isZero();
        assertThat(relay.relay().event(event.id().hex())).isEmpty();
    }

    @Test
    void nonMember_closedGroup_isRefusedAtAdmissionAndNothingIsStored() {
        relay.createGroup("crew", true);
        relay.addMember("crew", ALICE.publicKey());
        startSidecar(Optional.of(relay.relayPubkey()));

        SignedClient.Reply reply = sidecar.client.schedule(BOB, SignedClient.message(BOB, "crew", dueIn(60), "let me in"));

        assertThat(reply.status()).isEqualTo(403);
        assertThat(reply.error()).isEqualTo("not_in_channel");
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message")).isZero();
    }

    @Test
    void backlogAtARelayRefusingPagesOverItsUnstatedLimit_isLoaded_andMembersCreatesSucceed() {
        relay.close();
        relay = Nip29TestRelay.start(mode -> mode.mode("--max-limit", "50", "--max-limit-answer", "notice")
                .env("TEST_RELAY_NIP29_GROUP_COUNT", "120")
                .env("TEST_RELAY_NIP29_GROUP_MEMBERS", ALICE.publicKey().hex()));

        startSidecar(Optional.empty()); // the feed's default page of 100 is refused by NOTICE: it must go lower
        String first = scheduled(ALICE, SignedClient.message(ALICE, "g0001", dueIn(10), "to the oldest group"));
        String last = scheduled(ALICE, SignedClient.message(ALICE, "g0120", dueIn(10), "to the newest group"));
        SignedClient.Reply stranger = sidecar.client.schedule(BOB, SignedClient.message(BOB, "g0060", dueIn(10),
                "hi"));
        Poll.until("both to be published", WAIT.multipliedBy(2), () -> stored(first).state().wireName()
                .equals("published") && stored(last).state().wireName().equals("published"));

        assertThat(sidecar.feed.orElseThrow().inSync()).isTrue();
        assertThat(stranger.status()).as("the backlog decides: not a member").isEqualTo(403);
        assertThat(stranger.json().get("error").asText()).isEqualTo("not_in_channel");
    }

    @Test
    void nonMember_openGroup_isAdmittedAndPublished() {
        relay.createGroup("lobby", false);
        startSidecar(Optional.of(relay.relayPubkey()));
        NostrEvent event = SignedClient.message(BOB, "lobby", dueIn(3), "hello lobby");

        String id = scheduled(BOB, event);
        Poll.until("publication", WAIT, () -> stored(id).state().wireName().equals("published"));

        assertThat(relay.relay().event(event.id().hex())).isPresent();
    }

    @Test
    void archivedGroup_refusesAdmissionIsArchived_andArchivingBeforeTheDueTimeFailsAccessDeniedWithoutRetry() {
        relay.createGroup("crew", true);
        relay.addMember("crew", ALICE.publicKey());
        relay.createGroup("attic", true);
        relay.addMember("attic", ALICE.publicKey());
        relay.editGroup("attic", "archived");
        startSidecar(Optional.of(relay.relayPubkey()));
        Instant due = dueIn(4);
        NostrEvent event = SignedClient.message(ALICE, "crew", due, "posted after archiving?");
        String id = scheduled(ALICE, event);

        SignedClient.Reply toArchived = sidecar.client.schedule(ALICE,
                SignedClient.message(ALICE, "attic", dueIn(60), "into the attic"));
        relay.editGroup("crew", "archived");
        Poll.until("the pre-send check to fail the message", WAIT, () -> stored(id).state().terminal());
        waitUntilPast(due.plusSeconds(4));

        assertThat(toArchived.status()).isEqualTo(403);
        assertThat(toArchived.error()).isEqualTo("is_archived");
        assertThat(stored(id).failureReason()).contains(FailureReason.ACCESS_DENIED);
        assertThat(stored(id).attempts()).as("never retried").isEqualTo(1);
        assertThat(stored(id).event()).as("kept until retention for an operator's requeue").isPresent();
        assertThat(relay.relay().event(event.id().hex())).isEmpty();
    }

    @Test
    void deleteGroup_onTheRelay_failsPendingPurgesPayloadsRefusesAdmissionAndPublishesNothing() {
        relay.createGroup("doomed", true);
        relay.addMember("doomed", ALICE.publicKey());
        relay.addMember("doomed", BOB.publicKey());
        startSidecar(Optional.of(relay.relayPubkey()));
        Instant due = dueIn(4);
        String alices = scheduled(ALICE, SignedClient.message(ALICE, "doomed", due, "alice's last word"));
        String bobs = scheduled(BOB, SignedClient.message(BOB, "doomed", due.plusSeconds(1), "bob's last word"));
        assertThat(payloadsStored("doomed")).isEqualTo(4);

        relay.deleteGroup("doomed");
        Poll.until("the deletion to fail both messages", WAIT,
                () -> stored(alices).state().terminal() && stored(bobs).state().terminal());
        SignedClient.Reply later = sidecar.client.schedule(ALICE,
                SignedClient.message(ALICE, "doomed", dueIn(60), "anyone there?"));
        waitUntilPast(due.plusSeconds(4));

        assertThat(stored(alices).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(stored(bobs).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(payloadsStored("doomed")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM channel_tombstone WHERE channel = 'doomed'")).isEqualTo(1);
        assertThat(later.status()).isEqualTo(422);
        assertThat(later.error()).isEqualTo("channel_not_found");
        assertThat(relay.relay().events("{\"kinds\":[9],\"#h\":[\"doomed\"]}")).isEmpty();
    }

    @Test
    void unknownGroup_isRefusedChannelNotFound() {
        startSidecar(Optional.of(relay.relayPubkey()));

        SignedClient.Reply reply = sidecar.client.schedule(ALICE,
                SignedClient.message(ALICE, "nowhere", dueIn(60), "hello?"));

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.error()).isEqualTo("channel_not_found");
    }

    @Test
    void relayUnreachable_admissionAnswers503UntilItIsBack() {
        relay.createGroup("crew", true);
        relay.addMember("crew", ALICE.publicKey());
        startSidecar(Optional.of(relay.relayPubkey()));

        relay.relay().stop();
        Poll.until("the feed to notice", WAIT, () -> !sidecar.feed.orElseThrow().inSync());
        SignedClient.Reply whileDown = sidecar.client.schedule(ALICE,
                SignedClient.message(ALICE, "crew", dueIn(60), "is anyone there"));
        relay.relay().restart();
        Poll.until("the feed to sync again", WAIT, () -> sidecar.feed.orElseThrow().inSync());
        SignedClient.Reply afterwards = sidecar.client.schedule(ALICE,
                SignedClient.message(ALICE, "crew", dueIn(60), "back again"));

        assertThat(whileDown.status()).isEqualTo(503);
        assertThat(whileDown.text()).contains("not available");
        assertThat(afterwards.status()).as(afterwards.text()).isEqualTo(201);
    }
}

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
 * docs/failure-scenarios.md F15 with the real test relay and PostgreSQL: schedule, then the owner loses access to the
 * channel before the due time. Nothing is sent; the item fails {@code access_denied} (nip29 policy, the pre-send check)
 * or {@code relay_rejected} (relay policy, the relay's {@code restricted:}) and is not retried.
 */
class LostAccessTest {

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

    private ScheduledMessage stored(String id) {
        return sidecar.store.find(ScheduleId.parse(id)).orElseThrow();
    }

    private String scheduled(SecretKey author, NostrEvent event) {
        SignedClient.Reply reply = sidecar.client.schedule(author, event);
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply.json().get("id").asText();
    }

    @Test
    void f15_nip29_groupClosedToANonMemberBeforeTheDueTime_failsAccessDeniedSendsNothingNeverRetries() {
        relay.createGroup("lobby", false);
        sidecar = AccessStack.start(db.dataSource(), db.jdbcUrl(), relay.url(), Policy.NIP29,
                Optional.of(relay.relayPubkey()), Duration.ofSeconds(900));
        Poll.until("the NIP-29 feed to sync", WAIT, () -> sidecar.feed.orElseThrow().inSync());
        Instant due = Instant.now().plusSeconds(4).truncatedTo(ChronoUnit.SECONDS);
        NostrEvent event = SignedClient.message(BOB, "lobby", due, "posted while the lobby was open");
        String id = scheduled(BOB, event);

        relay.editGroup("lobby", "closed");
        Poll.until("the pre-send check to end the message", WAIT, () -> stored(id).state().terminal());
        Poll.until("well past the due time", WAIT, () -> Instant.now().isAfter(due.plusSeconds(4)));

        assertThat(stored(id).failureReason()).contains(FailureReason.ACCESS_DENIED);
        assertThat(stored(id).attempts()).isEqualTo(1);
        assertThat(relay.relay().event(event.id().hex())).isEmpty();
    }

    @Test
    void f15_relayPolicy_memberRemovedBeforeTheDueTime_relayRefusesAndTheItemFailsRelayRejectedOnce() {
        relay.createGroup("crew", true);
        relay.addMember("crew", ALICE.publicKey());
        sidecar = AccessStack.start(db.dataSource(), db.jdbcUrl(), relay.url(), Policy.RELAY, Optional.empty(),
                Duration.ofSeconds(900));
        Instant due = Instant.now().plusSeconds(4).truncatedTo(ChronoUnit.SECONDS);
        NostrEvent event = SignedClient.message(ALICE, "crew", due, "posted after my removal?");
        String id = scheduled(ALICE, event);

        relay.removeMember("crew", ALICE.publicKey());
        Poll.until("the relay's answer to end the message", WAIT, () -> stored(id).state().terminal());
        Poll.until("well past the due time", WAIT, () -> Instant.now().isAfter(due.plusSeconds(4)));

        assertThat(stored(id).failureReason()).contains(FailureReason.RELAY_REJECTED);
        assertThat(stored(id).attempts()).isEqualTo(1);
        assertThat(stored(id).event()).as("kept until retention for an operator's requeue").isPresent();
        assertThat(relay.relay().event(event.id().hex())).isEmpty();
    }
}

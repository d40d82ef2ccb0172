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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/scheduled-messages.md §5 / docs/failure-scenarios.md F16 with the real relay stopped and restarted:
 * {@code held_before} is null while nothing is overdue, equals the overdue message's due time while the relay is down,
 * and is null again once the message is published (relay back) or has expired (lateness limit passed). Read over the
 * operator route and the metrics.
 */
class ReservationsRelayDownTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final SecretKey ALICE = new SecretKey("a1".repeat(32));
    private static final Duration WAIT = Duration.ofSeconds(40);

    private TestRelay relay;
    private AccessStack sidecar;

    @BeforeEach
    void start() {
        db.truncateAllTables();
        relay = TestRelay.start();
    }

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
        relay.close();
    }

    private SignedClient.Reply reservations() {
        SignedClient.Reply reply = sidecar.client.send(AccessStack.OPERATOR, "GET", "/v1/reservations", null);
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        return reply;
    }

    private String state(String id) {
        return sidecar.store.find(ScheduleId.parse(id)).orElseThrow().state().wireName();
    }

    private String scheduled(NostrEvent event) {
        SignedClient.Reply reply = sidecar.client.schedule(ALICE, event);
        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        return reply.json().get("id").asText();
    }

    @Test
    void heldBefore_relayDownAroundTheDueTime_holdsTheDueTimeUntilTheRelayIsBackAndItIsPublished() {
        sidecar = AccessStack.start(db.dataSource(), db.jdbcUrl(), relay.url(), Policy.RELAY, Optional.empty(),
                Duration.ofSeconds(900));
        Instant due = Instant.now().plusSeconds(3).truncatedTo(ChronoUnit.SECONDS);
        NostrEvent event = SignedClient.message(ALICE, "general", due, "delivered late");
        String id = scheduled(event);
        SignedClient.Reply beforeDue = reservations();

        relay.stop();
        Poll.until("the due time to pass with the relay down", WAIT,
                () -> Instant.now().isAfter(due.plusSeconds(2)));
        SignedClient.Reply whileDown = reservations();
        String metricsWhileDown = sidecar.client.send(null, "GET", "/metrics", null).text();
        String stateWhileDown = state(id);
        relay.restart();
        Poll.until("publication once the relay is back", WAIT, () -> state(id).equals("published"));
        SignedClient.Reply afterwards = reservations();

        assertThat(beforeDue.text()).isEqualTo("{\"held_before\":null,\"overdue\":0,\"next_due\":"
                + due.getEpochSecond() + "}");
        assertThat(whileDown.text()).isEqualTo("{\"held_before\":" + due.getEpochSecond()
                + ",\"overdue\":1,\"next_due\":null}");
        assertThat(OperatorViewStack.sample(metricsWhileDown, "buzz_reservations_held_before_timestamp_seconds"))
                .isEqualTo(due.getEpochSecond());
        assertThat(OperatorViewStack.sample(metricsWhileDown, "buzz_reservations_overdue")).isEqualTo(1);
        assertThat(OperatorViewStack.sample(metricsWhileDown, "buzz_relay_connected")).isZero();
        assertThat(stateWhileDown).isIn("scheduled", "claimed", "sending");
        assertThat(afterwards.text()).isEqualTo("{\"held_before\":null,\"overdue\":0,\"next_due\":null}");
        assertThat(relay.event(event.id().hex())).isPresent();
    }

    @Test
    void heldBefore_relayDownPastTheLatenessLimit_isReleasedWhenTheMessageExpires() {
        sidecar = AccessStack.start(db.dataSource(), db.jdbcUrl(), relay.url(), Policy.RELAY, Optional.empty(),
                Duration.ofSeconds(4));
        Instant due = Instant.now().plusSeconds(3).truncatedTo(ChronoUnit.SECONDS);
        NostrEvent event = SignedClient.message(ALICE, "general", due, "never delivered");
        String id = scheduled(event);

        relay.stop();
        Poll.until("the due time to pass with the relay down", WAIT,
                () -> Instant.now().isAfter(due.plusSeconds(1)) && !state(id).equals("failed"));
        SignedClient.Reply overdue = reservations();
        Poll.until("expiry past the lateness limit", WAIT, () -> state(id).equals("failed"));
        SignedClient.Reply expired = reservations();
        relay.restart();

        assertThat(overdue.json().get("held_before").asLong()).isEqualTo(due.getEpochSecond());
        assertThat(overdue.json().get("overdue").asInt()).isEqualTo(1);
        assertThat(sidecar.store.find(ScheduleId.parse(id)).orElseThrow().failureReason())
                .contains(FailureReason.EXPIRED);
        assertThat(expired.text()).isEqualTo("{\"held_before\":null,\"overdue\":0,\"next_due\":null}");
        assertThat(relay.event(event.id().hex())).isEmpty();
    }
}

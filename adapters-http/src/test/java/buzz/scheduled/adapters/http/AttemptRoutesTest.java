package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.BOB;
import static buzz.scheduled.adapters.http.ApiFixture.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A message's delivery attempts over HTTP (docs/openapi.yaml {@code getScheduledMessageAttempts},
 * {@code getAdminMessage}): the owner's view scoped to them, the operators' detail without the event content.
 */
class AttemptRoutesTest {
    private ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    /** Creates a message for ALICE, retries it once with the relay's words, then fails it relay_rejected. */
    private String retriedThenRejected() {
        String id = api.create(api.message(ALICE, Duration.ofMinutes(5))).json().get("id").asText();
        ScheduledMessage sending = api.sending(id);
        finish(new DeliveryStore.Finish.Retry(claim(sending), sending.revision(), Duration.ofSeconds(30),
                Duration.ofMinutes(15), "rate-limited: slow down\nid=forged"));
        api.clock.advance(Duration.ofSeconds(31));
        sending = api.sending(id);
        finish(new DeliveryStore.Finish.Fail(claim(sending), sending.revision(), FailureReason.RELAY_REJECTED,
                "blocked: not a member"));
        return id;
    }

    @Test
    void ownerAttempts_retriedThenRejected_listsBothOldestFirstWithTheRelaysWords() {
        String id = retriedThenRejected();

        ApiFixture.Reply reply = api.call("GET", "/v1/scheduled-messages/" + id + "/attempts").as(ALICE).send();

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.header("Cache-Control")).isEqualTo("no-store");
        JsonNode attempts = reply.json();
        assertThat(attempts.isArray()).isTrue();
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0).get("attempt").asInt()).isEqualTo(1);
        assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("retry");
        assertThat(attempts.get(0).get("reason").isNull()).isTrue();
        assertThat(attempts.get(0).get("relay_message").asText()).isEqualTo("rate-limited: slow down\nid=forged");
        assertThat(reply.text()).as("a control character is escaped in the JSON text").contains("\\n");
        assertThat(attempts.get(1).get("attempt").asInt()).isEqualTo(2);
        assertThat(attempts.get(1).get("outcome").asText()).isEqualTo("failed");
        assertThat(attempts.get(1).get("reason").asText()).isEqualTo("relay_rejected");
        assertThat(attempts.get(1).get("relay_message").asText()).isEqualTo("blocked: not a member");
        assertThat(attempts.get(1).get("at").asLong()).isEqualTo(api.clock.now().getEpochSecond());
    }

    @Test
    void ownerAttempts_publishedAtTheFirstTry_isOnePublishedAttempt() {
        String id = api.create(api.message(ALICE, Duration.ofMinutes(5))).json().get("id").asText();
        ScheduledMessage published = api.published(id);

        JsonNode attempts = api.call("GET", "/v1/scheduled-messages/" + id + "/attempts").as(ALICE).send().json();

        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("published");
        assertThat(attempts.get(0).get("at").asLong()).isEqualTo(published.publishedAt().orElseThrow().getEpochSecond());
        assertThat(attempts.get(0).get("relay_message").isNull()).isTrue();
    }

    @Test
    void ownerAttempts_notYetAttempted_isAnEmptyArray() {
        String id = api.create(api.message(ALICE, Duration.ofMinutes(5))).json().get("id").asText();

        ApiFixture.Reply reply = api.call("GET", "/v1/scheduled-messages/" + id + "/attempts").as(ALICE).send();

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.text()).isEqualTo("[]");
    }

    @Test
    void ownerAttempts_anotherOwnersOrAnUnknownOrAMalformedId_is404LikeAMissingMessage() {
        String id = retriedThenRejected();

        for (String path : List.of(id, "00000000-0000-4000-8000-000000000000", "not-a-uuid")) {
            ApiFixture.Reply reply = api.call("GET", "/v1/scheduled-messages/" + path + "/attempts").as(BOB).send();
            assertThat(reply.status()).as(path).isEqualTo(404);
            assertThat(reply.error()).isEqualTo("not_found");
        }
    }

    @Test
    void operatorDetail_anyOwnersMessage_hasItsMetadataAndAttemptsButNoEvent() {
        String id = retriedThenRejected();

        ApiFixture.Reply reply = api.call("GET", "/v1/admin/messages/" + id).as(OPERATOR).send();

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        JsonNode detail = reply.json();
        assertThat(detail.get("id").asText()).isEqualTo(id);
        assertThat(detail.get("owner").asText()).isEqualTo(ALICE.hex());
        assertThat(detail.get("state").asText()).isEqualTo("failed");
        assertThat(detail.get("reason").asText()).isEqualTo("relay_rejected");
        assertThat(detail.has("event")).isFalse();
        assertThat(detail.get("attempts")).hasSize(2);
        assertThat(detail.get("attempts").get(1).get("relay_message").asText()).isEqualTo("blocked: not a member");
    }

    @Test
    void operatorDetail_ofAnOwnerOrAnUnknownId_isRefusedOrNotFound() {
        String id = retriedThenRejected();

        assertThat(api.call("GET", "/v1/admin/messages/" + id).as(ALICE).send().status()).isEqualTo(403);
        ApiFixture.Reply unknown = api.call("GET", "/v1/admin/messages/00000000-0000-4000-8000-000000000000")
                .as(OPERATOR).send();
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.error()).isEqualTo("not_found");
    }

    private void finish(DeliveryStore.Finish finish) {
        assertThat(api.delivery.finish(List.of(finish)).get(0).recorded()).isTrue();
    }

    private static DeliveryStore.Claim claim(ScheduledMessage sending) {
        return new DeliveryStore.Claim(sending.id(), sending.token().orElseThrow());
    }
}

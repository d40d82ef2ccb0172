package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleState;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An operator's cancel and requeue of one message over HTTP (docs/openapi.yaml {@code cancelAdminMessage},
 * {@code requeueAdminMessage}): what they change, the detail they answer (never the content), and each refusal with
 * its code, nothing changed.
 */
class MessageActionRoutesTest {
    private ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void cancel_operatorOnAnOwnersPendingMessage_cancelsItAndAnswersTheDetailWithoutContent() {
        String id = api.create(api.message(ALICE, Duration.ofHours(1), "private words")).json().get("id").asText();

        ApiFixture.Reply reply = api.call("POST", "/v1/admin/messages/" + id + "/cancel").as(OPERATOR).send();

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.json().get("state").asText()).isEqualTo("cancelled");
        assertThat(reply.json().get("purged").asBoolean()).isTrue();
        assertThat(reply.json().get("owner").asText()).isEqualTo(ALICE.hex());
        assertThat(reply.json().has("attempts")).isTrue();
        assertThat(reply.text()).doesNotContain("private words").doesNotContain("\"event\"");
        assertThat(api.stored(id).state()).isInstanceOf(ScheduleState.Cancelled.class);
        assertThat(api.stored(id).event()).isEmpty();
    }

    @Test
    void requeue_failedRelayRejected_isScheduledAgainWithTheOwnersEvent() {
        String id = api.create(api.message(ALICE, Duration.ofMinutes(1))).json().get("id").asText();
        var event = api.stored(id).event();
        api.failed(id, FailureReason.RELAY_REJECTED);

        ApiFixture.Reply reply = api.call("POST", "/v1/admin/messages/" + id + "/requeue").as(OPERATOR)
                .header("If-Match", "\"1\"").send();

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.json().get("state").asText()).isEqualTo("scheduled");
        assertThat(reply.json().get("reason").isNull()).isTrue();
        assertThat(reply.json().get("purged").asBoolean()).isFalse();
        assertThat(api.stored(id).event()).isEqualTo(event).isPresent();
        assertThat(api.stored(id).state()).isEqualTo(ScheduleState.Scheduled.NOW);
    }

    @Test
    void requeue_refusals_answerTheirCodesAndChangeNothing() {
        String pending = api.create(api.message(ALICE, Duration.ofHours(1))).json().get("id").asText();
        String failed = api.create(api.message(ALICE, Duration.ofMinutes(1))).json().get("id").asText();
        api.failed(failed, FailureReason.ACCESS_DENIED);
        var before = api.stored(failed);

        ApiFixture.Reply notFailed = requeue(pending, null);
        ApiFixture.Reply otherRevision = requeue(failed, "\"2\"");
        ApiFixture.Reply badIfMatch = requeue(failed, "W/\"1\"");
        ApiFixture.Reply unknown = requeue(UUID.randomUUID().toString(), null);
        ApiFixture.Reply notAnId = requeue("not-an-id", null);
        ApiFixture.Reply owner = api.call("POST", "/v1/admin/messages/" + failed + "/requeue").as(ALICE).send();
        ApiFixture.Reply withQuery = api.call("POST", "/v1/admin/messages/" + failed + "/requeue?now=1").as(OPERATOR)
                .send();
        api.clock.advance(ApiFixture.MAX_LATENESS.plusMinutes(2));
        ApiFixture.Reply tooOld = requeue(failed, null);

        assertThat(List.of(notFailed.status(), otherRevision.status(), badIfMatch.status(), unknown.status(),
                notAnId.status(), owner.status(), withQuery.status(), tooOld.status()))
                .containsExactly(409, 412, 400, 404, 404, 403, 400, 409);
        assertThat(notFailed.error()).isEqualTo("not_failed");
        assertThat(notFailed.json().get("message").asText()).contains("only a failed message can be requeued");
        assertThat(otherRevision.error()).isEqualTo("revision_conflict");
        assertThat(otherRevision.header("ETag")).isEqualTo("\"1\"");
        assertThat(tooOld.error()).isEqualTo("resign_required");
        assertThat(tooOld.json().get("message").asText()).contains("BUZZ_MAX_LATENESS_SECONDS = 900 s");
        assertThat(api.stored(failed)).isEqualTo(before);
        assertThat(api.stored(pending).state()).isEqualTo(ScheduleState.Scheduled.NOW);
    }

    @Test
    void requeue_memberRemoved_isRefusedEventPurged() {
        String id = api.create(api.message(ALICE, Duration.ofHours(1))).json().get("id").asText();
        api.call("POST", "/v1/admin/channels/general/members/" + ALICE.hex() + "/removed").as(OPERATOR).send();

        ApiFixture.Reply reply = requeue(id, null);

        assertThat(reply.status()).as(reply.text()).isEqualTo(409);
        assertThat(reply.error()).isEqualTo("event_purged");
        assertThat(api.stored(id).failureReason()).contains(FailureReason.MEMBER_REMOVED);
    }

    @Test
    void cancel_publishedOrFailed_isRefusedLikeTheOwners() {
        String published = api.create(api.message(ALICE, Duration.ofMinutes(1))).json().get("id").asText();
        api.published(published);
        String failed = api.create(api.message(ALICE, Duration.ofMinutes(2))).json().get("id").asText();
        api.failed(failed, FailureReason.RELAY_REJECTED);

        ApiFixture.Reply sent = api.call("POST", "/v1/admin/messages/" + published + "/cancel").as(OPERATOR).send();
        ApiFixture.Reply ended = api.call("POST", "/v1/admin/messages/" + failed + "/cancel").as(OPERATOR).send();

        assertThat(sent.status()).isEqualTo(409);
        assertThat(sent.error()).isEqualTo("already_sent");
        assertThat(ended.status()).isEqualTo(409);
        assertThat(ended.error()).isEqualTo("not_pending");
    }

    private ApiFixture.Reply requeue(String id, String ifMatch) {
        ApiFixture.Call call = api.call("POST", "/v1/admin/messages/" + id + "/requeue").as(OPERATOR);
        if (ifMatch != null) {
            call.header("If-Match", ifMatch);
        }
        return call.send();
    }
}

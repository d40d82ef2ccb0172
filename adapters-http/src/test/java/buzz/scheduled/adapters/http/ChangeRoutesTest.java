package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Reads, edits, cancels and send now over HTTP (docs/openapi.yaml, tag owner). */
class ChangeRoutesTest {
    private ApiFixture api;
    private String id;
    private String path;

    @BeforeEach
    void start() {
        api = new ApiFixture();
        id = api.create(api.message(ALICE, Duration.ofHours(1))).json().get("id").asText();
        path = "/v1/scheduled-messages/" + id;
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private ApiFixture.Reply put(NostrEvent event, String ifMatch) {
        ApiFixture.Call call = api.call("PUT", path).as(ALICE).body(envelope(event));
        if (ifMatch != null) {
            call.header("If-Match", ifMatch);
        }
        return call.send();
    }

    private ApiFixture.Reply delete() {
        return api.call("DELETE", path).as(ALICE).send();
    }

    private ApiFixture.Reply sendNow(NostrEvent event) {
        ApiFixture.Call call = api.call("POST", path + "/send-now").as(ALICE);
        if (event != null) {
            call.body(envelope(event));
        }
        return call.send();
    }

    private void assertProblem(ApiFixture.Reply reply, int status, String code) {
        assertThat(reply.status()).as(reply.text()).isEqualTo(status);
        assertThat(reply.error()).as(reply.text()).isEqualTo(code);
        assertThat(reply.json().get("message").asText()).isNotBlank();
    }

    private void assertUnchanged(ScheduledMessage before) {
        assertThat(api.stored(id)).isEqualTo(before);
        assertThat(api.store.revisions(ScheduleId.parse(id))).containsExactly(before.revision());
    }

    // ---- GET ----

    @Test
    void get_ownMessage_answersItemWithEtag() {
        ApiFixture.Reply reply = api.call("GET", path).as(ALICE).send();

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.header("ETag")).isEqualTo("\"1\"");
        assertThat(reply.json().get("id").asText()).isEqualTo(id);
    }

    @Test
    void get_unknownOrMalformedId_answers404NotFound() {
        assertProblem(api.call("GET", "/v1/scheduled-messages/00000000-0000-4000-8000-0000000000ff").as(ALICE).send(),
                404, "not_found");
        assertProblem(api.call("GET", "/v1/scheduled-messages/not-a-uuid").as(ALICE).send(), 404, "not_found");
    }

    // ---- PUT ----

    @Test
    void put_withCurrentRevision_storesRevision2() {
        NostrEvent next = api.message(ALICE, Duration.ofHours(3), "moved later");

        ApiFixture.Reply reply = put(next, "\"1\"");

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.header("ETag")).isEqualTo("\"2\"");
        assertThat(reply.json().get("revision").asInt()).isEqualTo(2);
        assertThat(reply.json().get("event_id").asText()).isEqualTo(next.id().hex());
        assertThat(reply.json().get("due_at").asLong()).isEqualTo(next.createdAt());
        assertThat(api.store.revisions(ScheduleId.parse(id))).containsExactly(new Revision(1), new Revision(2));
    }

    @Test
    void put_toAnotherChannel_readmitsAndMoves() {
        NostrEvent next = ApiFixture.event(ALICE, ApiFixture.START.getEpochSecond() + 7200, 9,
                List.of(List.of("h", "random")), "elsewhere");

        ApiFixture.Reply reply = put(next, "\"1\"");

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.json().get("channel").asText()).isEqualTo("random");
    }

    @Test
    void put_withoutIfMatch_answers428AndChangesNothing() {
        ScheduledMessage before = api.stored(id);

        assertProblem(put(api.message(ALICE, Duration.ofHours(2)), null), 428, "precondition_required");
        assertUnchanged(before);
    }

    @Test
    void put_withStaleRevision_answers412WithCurrentEtag() {
        ScheduledMessage before = api.stored(id);

        ApiFixture.Reply reply = put(api.message(ALICE, Duration.ofHours(2)), "\"2\"");

        assertProblem(reply, 412, "revision_conflict");
        assertThat(reply.header("ETag")).isEqualTo("\"1\"");
        assertUnchanged(before);
    }

    @Test
    void put_withMalformedIfMatch_answers400() {
        ScheduledMessage before = api.stored(id);
        for (String bad : List.of("1", "W/\"1\"", "*", "\"1\", \"2\"", "\"0\"", "\"99999999999\"")) {
            assertProblem(put(api.message(ALICE, Duration.ofHours(2)), bad), 400, "invalid_request");
        }
        assertUnchanged(before);
    }

    @Test
    void put_withInvalidOrLateEvent_refusesAndChangesNothing() {
        ScheduledMessage before = api.stored(id);
        NostrEvent forged = api.message(ALICE, Duration.ofHours(2));
        api.signatures.markInvalid(forged.id(), "signature does not verify");

        assertProblem(put(forged, "\"1\""), 400, "invalid_event");
        assertProblem(put(api.message(ALICE, Duration.ofSeconds(-5)), "\"1\""), 422, "time_in_past");
        assertProblem(put(api.message(ApiFixture.BOB, Duration.ofHours(2)), "\"1\""), 403, "pubkey_mismatch");
        assertUnchanged(before);
    }

    @Test
    void put_whileClaimed_revokesTheClaim() {
        api.claim(id);

        ApiFixture.Reply reply = put(api.message(ALICE, Duration.ofHours(2)), "\"1\"");

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.json().get("state").asText()).isEqualTo("scheduled");
        assertThat(reply.json().get("revision").asInt()).isEqualTo(2);
    }

    @Test
    void put_whileSending_answers409Dispatching() {
        ScheduledMessage sending = api.sending(id);

        assertProblem(put(api.message(ALICE, Duration.ofHours(2)), "\"1\""), 409, "dispatching");
        assertThat(api.stored(id)).isEqualTo(sending);
    }

    @Test
    void put_afterCancel_answers409NotPending() {
        assertThat(delete().status()).isEqualTo(200);

        assertProblem(put(api.message(ALICE, Duration.ofHours(2)), "\"1\""), 409, "not_pending");
    }

    // ---- DELETE ----

    @Test
    void delete_pending_answersCancelledWithoutEvent() {
        ApiFixture.Reply reply = delete();

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.json().get("state").asText()).isEqualTo("cancelled");
        assertThat(reply.json().has("event")).isFalse();
        assertThat(reply.json().get("reason").isNull()).isTrue();
        assertThat(api.stored(id).event()).isEmpty();
    }

    @Test
    void delete_twice_answersTheCancelledItemAgain() {
        ApiFixture.Reply first = delete();

        ApiFixture.Reply second = delete();

        assertThat(second.status()).isEqualTo(200);
        assertThat(second.text()).isEqualTo(first.text());
    }

    @Test
    void delete_whileClaimed_cancels() {
        api.claim(id);

        assertThat(delete().json().get("state").asText()).isEqualTo("cancelled");
    }

    @Test
    void delete_whileSending_answers409Dispatching() {
        api.sending(id);

        assertProblem(delete(), 409, "dispatching");
        assertThat(api.stored(id).state().wireName()).isEqualTo("sending");
    }

    @Test
    void delete_published_answers409AlreadySent() {
        api.published(id);

        assertProblem(delete(), 409, "already_sent");
        ApiFixture.Reply item = api.call("GET", path).as(ALICE).send();
        assertThat(item.json().get("state").asText()).isEqualTo("published");
        assertThat(item.json().get("published_at").asLong()).isEqualTo(api.clock.now().getEpochSecond());
    }

    @Test
    void delete_failed_answers409NotPendingAndItemShowsReason() {
        api.failed(id, FailureReason.RELAY_REJECTED);

        assertProblem(delete(), 409, "not_pending");
        ApiFixture.Reply item = api.call("GET", path).as(ALICE).send();
        assertThat(item.json().get("state").asText()).isEqualTo("failed");
        assertThat(item.json().get("reason").asText()).isEqualTo("relay_rejected");
        assertThat(item.json().has("event")).as("a relay refusal keeps the event for an operator's requeue").isTrue();
    }

    // ---- send now ----

    @Test
    void sendNow_storedEventWithinRelayWindow_answers202DueNow() {
        api.clock.advance(Duration.ofMinutes(50)); // due in 10 minutes: inside the 900 s window

        ApiFixture.Reply reply = sendNow(null);

        assertThat(reply.status()).as(reply.text()).isEqualTo(202);
        assertThat(reply.json().get("due_at").asLong()).isEqualTo(api.clock.now().getEpochSecond());
        assertThat(reply.json().get("revision").asInt()).isEqualTo(1);
    }

    @Test
    void sendNow_storedEventOutsideRelayWindow_answers409ResignRequired() {
        ScheduledMessage before = api.stored(id);

        assertProblem(sendNow(null), 409, "resign_required");
        assertUnchanged(before);
    }

    @Test
    void sendNow_withFreshEvent_answers202NewRevisionDueNow() {
        NostrEvent fresh = api.message(ALICE, Duration.ZERO, "right now");

        ApiFixture.Reply reply = sendNow(fresh);

        assertThat(reply.status()).as(reply.text()).isEqualTo(202);
        assertThat(reply.json().get("revision").asInt()).isEqualTo(2);
        assertThat(reply.json().get("event_id").asText()).isEqualTo(fresh.id().hex());
        assertThat(reply.json().get("due_at").asLong()).isEqualTo(api.clock.now().getEpochSecond());
    }

    @Test
    void sendNow_withNewEventTooFarAheadForTheRelayWindow_answers422TimeTooFar() {
        ScheduledMessage before = api.stored(id);

        // The new event is what is admitted (the stored one's window answers resign_required, above).
        assertProblem(sendNow(api.message(ALICE, Duration.ofHours(2))), 422, "time_too_far");
        assertUnchanged(before);
    }

    @Test
    void sendNow_withMalformedEvent_answers400InvalidEvent() {
        ScheduledMessage before = api.stored(id);

        assertProblem(api.call("POST", path + "/send-now").as(ALICE).body("{\"event\":{\"id\":1}}").send(),
                400, "invalid_event");
        assertUnchanged(before);
    }

    @Test
    void sendNow_whileSending_answers409Dispatching() {
        api.sending(id);

        assertProblem(sendNow(null), 409, "dispatching");
    }

    @Test
    void sendNow_published_answers409AlreadySent() {
        api.published(id);

        assertProblem(sendNow(null), 409, "already_sent");
    }

    @Test
    void sendNow_cancelled_answers409NotPending() {
        delete();

        assertProblem(sendNow(null), 409, "not_pending");
    }
}

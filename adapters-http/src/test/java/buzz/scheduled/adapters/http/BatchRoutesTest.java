package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.BASE;
import static buzz.scheduled.adapters.http.ApiFixture.BOB;
import static buzz.scheduled.adapters.http.ApiFixture.CHANNEL;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The batch create, series and bulk cancel routes (docs/openapi.yaml {@code createScheduledMessageBatch},
 * {@code getScheduledMessageSeries}, {@code cancelScheduledMessages}) through the real HTTP API over the in-memory
 * stores: every item answered in order as a single create would be, only valid items stored, the whole-body NIP-98
 * payload check, and bulk cancels scoped to their owner. The same on PostgreSQL with real signatures is
 * {@code BatchOnPostgresTest} in bootstrap.
 */
class BatchRoutesTest {
    private static final String BATCH = "/v1/scheduled-messages/batch";
    private static final String CANCEL = "/v1/scheduled-messages/cancel";

    private ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static String batch(List<String> events, String more) {
        return "{\"events\":[" + String.join(",", events) + "]" + more + "}";
    }

    private static String json(NostrEvent event) {
        return NostrEventJson.write(event);
    }

    private ApiFixture.Reply post(PublicKey owner, String path, String body) {
        return api.call("POST", path).as(owner).body(body).send();
    }

    @Test
    void batch_validDuplicateStoredOverLimitAndMalformedItems_eachAnsweredInOrderAndOnlyTheValidStored() {
        // Pending limit 5: one stored already, so the batch has room for four more.
        NostrEvent stored = api.message(ALICE, Duration.ofHours(1));
        String storedId = api.create(stored).json().get("id").asText();
        NostrEvent first = api.message(ALICE, Duration.ofHours(2));
        NostrEvent second = api.message(ALICE, Duration.ofHours(3));
        NostrEvent forged = api.message(ALICE, Duration.ofHours(4));
        api.signatures.markInvalid(forged.id(), "signature does not verify");
        NostrEvent past = api.message(ALICE, Duration.ofSeconds(-5));
        List<NostrEvent> fillers = List.of(api.message(ALICE, Duration.ofHours(5)), api.message(ALICE,
                Duration.ofHours(6)));
        NostrEvent overPending = api.message(ALICE, Duration.ofHours(7));
        List<String> items = List.of(json(first), json(first), json(stored), "{\"id\":\"not an event\"}",
                json(forged), json(past), json(second), json(fillers.get(0)), json(fillers.get(1)), json(overPending));

        ApiFixture.Reply reply = post(ALICE, BATCH, batch(items, ""));

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        JsonNode results = reply.json().get("results");
        assertThat(statuses(results)).containsExactly(201, 200, 200, 400, 400, 422, 201, 201, 201, 429);
        assertThat(errors(results)).containsExactly(null, null, null, "invalid_event", "invalid_event",
                "time_in_past", null, null, null, "too_many_pending");
        String firstId = results.get(0).get("item").get("id").asText();
        assertThat(results.get(1).get("item").get("id").asText()).as("the repeat is the first one").isEqualTo(firstId);
        assertThat(results.get(2).get("item").get("id").asText()).isEqualTo(storedId);
        assertThat(results.get(3).get("message").asText()).startsWith("the event is malformed: ");
        assertThat(results.get(9).get("message").asText()).contains("5 pending");
        assertThat(results.get(6).get("item").get("event").get("id").asText()).isEqualTo(second.id().hex());
        assertThat(reply.json().get("series_id").isNull()).isTrue();
        assertThat(api.store.size()).as("the stored one and the four valid new ones").isEqualTo(5);
        assertThat(api.store.rows()).extracting(m -> m.eventId().hex()).containsExactlyInAnyOrder(stored.id().hex(),
                first.id().hex(), second.id().hex(), fillers.get(0).id().hex(), fillers.get(1).id().hex());
        assertThat(api.registry.scrape()).as("refused items are counted like refused creates")
                .contains("buzz_http_refusals_total{code=\"invalid_event\"} 2")
                .contains("buzz_http_refusals_total{code=\"time_in_past\"} 1")
                .contains("buzz_http_refusals_total{code=\"too_many_pending\"} 1");
    }

    @Test
    void batch_explicitIdempotencyKeys_areEachItemsKey() {
        NostrEvent first = api.message(ALICE, Duration.ofHours(2));
        NostrEvent other = api.message(ALICE, Duration.ofHours(3));
        NostrEvent keyless = api.message(ALICE, Duration.ofHours(4));

        ApiFixture.Reply reply = post(ALICE, BATCH, batch(List.of(json(first), json(other), json(keyless)),
                ",\"idempotency_keys\":[\"order-1\",\"order-1\",null]"));
        ApiFixture.Reply single = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                .header("Idempotency-Key", "order-1").body(ApiFixture.envelope(first)).send();

        assertThat(statuses(reply.json().get("results"))).containsExactly(201, 422, 201);
        assertThat(errors(reply.json().get("results"))).containsExactly(null, "idempotency_conflict", null);
        assertThat(single.status()).as("a single create with the same key replays it").isEqualTo(200);
        assertThat(single.json().get("id").asText())
                .isEqualTo(reply.json().get("results").get(0).get("item").get("id").asText());
    }

    @Test
    void batch_headerPayloadNotTheBodysHash_isUnauthorizedAndStoresNothing() {
        String body = batch(List.of(json(api.message(ALICE, Duration.ofHours(2)))), "");
        String otherBody = batch(List.of(json(api.message(ALICE, Duration.ofHours(3)))), "");
        String header = api.nip98(ALICE, "POST", BASE + BATCH, otherBody.getBytes(StandardCharsets.UTF_8), true);

        ApiFixture.Reply reply = api.call("POST", BATCH).authorization(header).body(body).send();

        assertThat(reply.status()).isEqualTo(401);
        assertThat(reply.error()).isEqualTo("unauthorized");
        assertThat(reply.json().get("message").asText()).contains("payload tag does not match the SHA-256");
        assertThat(api.store.size()).isZero();
    }

    @Test
    void batch_headerWithoutPayload_isUnauthorizedAndStoresNothing() {
        String body = batch(List.of(json(api.message(ALICE, Duration.ofHours(2)))), "");

        ApiFixture.Reply reply = api.call("POST", BATCH).as(ALICE).withoutPayloadTag().body(body).send();
        ApiFixture.Reply single = api.call("POST", "/v1/scheduled-messages").as(ALICE).withoutPayloadTag()
                .body(ApiFixture.envelope(api.message(ALICE, Duration.ofHours(3)))).send();

        assertThat(reply.status()).isEqualTo(401);
        assertThat(reply.json().get("message").asText()).contains("needs a payload tag");
        assertThat(single.status()).as("a single create may leave the payload out").isEqualTo(201);
        assertThat(api.store.size()).isEqualTo(1);
    }

    @Test
    void batch_malformedWholeBody_isOneRefusalAndStoresNothing() {
        String event = json(api.message(ALICE, Duration.ofHours(2)));
        String tooMany = batch(Collections.nCopies(101, event), "");
        record Case(String name, String body, int status, String code) {
        }
        List<Case> cases = List.of(
                new Case("not JSON", "{\"events\":[", 400, "invalid_request"),
                new Case("not an object", "[" + event + "]", 400, "invalid_request"),
                new Case("no events", "{\"series\":true}", 400, "invalid_request"),
                new Case("events not an array", "{\"events\":" + event + "}", 400, "invalid_request"),
                new Case("no event in events", "{\"events\":[]}", 400, "invalid_request"),
                new Case("unknown member", batch(List.of(event), ",\"tz\":\"UTC\""), 400, "invalid_request"),
                new Case("series not a boolean", batch(List.of(event), ",\"series\":\"yes\""), 400, "invalid_request"),
                new Case("duplicate member", batch(List.of(event), ",\"events\":[]"), 400, "invalid_request"),
                new Case("keys not aligned", batch(List.of(event), ",\"idempotency_keys\":[null,null]"), 400,
                        "invalid_request"),
                new Case("key not printable", batch(List.of(event), ",\"idempotency_keys\":[\"a\\u0001\"]"), 400,
                        "invalid_request"),
                new Case("101 events", tooMany, 413, "too_large"),
                new Case("over the body cap", batch(List.of(event), ",\"series\":false" + " ".repeat(
                        api.settings.maxBodyBytes())), 413, "too_large"));

        for (Case c : cases) {
            ApiFixture.Reply reply = post(ALICE, BATCH, c.body());

            assertThat(reply.status()).as(c.name() + ": " + reply.text()).isEqualTo(c.status());
            assertThat(reply.error()).as(c.name()).isEqualTo(c.code());
            assertThat(api.store.size()).as(c.name() + ": nothing stored").isZero();
        }
        ApiFixture.Reply hundred = post(ALICE, BATCH, batch(IntStream.range(0, 100)
                .mapToObj(i -> json(api.message(ALICE, Duration.ofHours(1 + i)))).toList(), ""));
        assertThat(hundred.json().get("results")).as("100 is the limit, answered item by item").hasSize(100);
    }

    @Test
    void batch_ownerWriteRateCannotCoverIt_isRefusedWholeWithRetryAfterBeforeAnythingIsStored() {
        api.writes.allow(ALICE, 2, Duration.ofSeconds(7));
        List<String> three = List.of(json(api.message(ALICE, Duration.ofHours(2))),
                json(api.message(ALICE, Duration.ofHours(3))), json(api.message(ALICE, Duration.ofHours(4))));

        ApiFixture.Reply reply = post(ALICE, BATCH, batch(three, ""));
        ApiFixture.Reply two = post(ALICE, BATCH, batch(three.subList(0, 2), ""));

        assertThat(reply.status()).isEqualTo(429);
        assertThat(reply.error()).isEqualTo("rate_limited");
        assertThat(reply.header("Retry-After")).isEqualTo("7");
        assertThat(reply.json().get("message").asText()).contains("a batch of 3 events takes 3 writes");
        assertThat(two.status()).as("two writes were left: a batch of two takes them").isEqualTo(200);
        assertThat(api.store.size()).isEqualTo(2);
        assertThat(api.writes.asked(ALICE)).isEqualTo(5);
    }

    @Test
    void batch_accessUnavailableForOneChannel_answersThatItem503AndStoresTheOthers() {
        api.access.set(ALICE, new Channel("flaky"), new AccessDecision.Unavailable("the access callback timed out"));
        NostrEvent flaky = ApiFixture.event(ALICE, api.clock.now().plusSeconds(7200).getEpochSecond(), 9,
                List.of(List.of("h", "flaky")), "to flaky");
        NostrEvent fine = api.message(ALICE, Duration.ofHours(2));

        ApiFixture.Reply reply = post(ALICE, BATCH, batch(List.of(json(flaky), json(fine)), ""));

        assertThat(statuses(reply.json().get("results"))).containsExactly(503, 201);
        assertThat(errors(reply.json().get("results"))).containsExactly("unavailable", null);
        assertThat(api.store.size()).isEqualTo(1);
    }

    @Test
    void series_batchListAndSummary_groupTheItemsForTheirOwnerOnly() {
        List<NostrEvent> occurrences = List.of(api.message(ALICE, Duration.ofDays(1)),
                api.message(ALICE, Duration.ofDays(8)), api.message(ALICE, Duration.ofDays(15)));
        List<String> items = occurrences.stream().map(BatchRoutesTest::json).toList();
        api.create(api.message(ALICE, Duration.ofDays(2)));

        ApiFixture.Reply created = post(ALICE, BATCH, batch(items, ",\"series\":true"));
        String series = created.json().get("series_id").asText();
        ApiFixture.Reply retried = post(ALICE, BATCH, batch(items, ",\"series\":true"));
        ApiFixture.Reply listed = api.call("GET", "/v1/scheduled-messages?series=" + series).as(ALICE).send();
        ApiFixture.Reply summary = api.call("GET", "/v1/scheduled-messages/series/" + series).as(ALICE).send();

        assertThat(ScheduleId.parse(series)).isNotNull();
        assertThat(statuses(created.json().get("results"))).containsExactly(201, 201, 201);
        assertThat(created.json().get("results").findValues("item")).extracting(item -> item.get("series_id").asText())
                .containsOnly(series);
        assertThat(statuses(retried.json().get("results"))).as("a retry replays").containsExactly(200, 200, 200);
        assertThat(retried.json().get("series_id").asText()).as("and answers the same series").isEqualTo(series);
        assertThat(listed.json().get("items")).extracting(item -> item.get("event_id").asText())
                .containsExactlyElementsOf(occurrences.stream().map(e -> e.id().hex()).toList());
        assertThat(summary.status()).isEqualTo(200);
        assertThat(summary.json().get("pending").asInt()).isEqualTo(3);
        assertThat(summary.json().get("total").asInt()).isEqualTo(3);
        assertThat(summary.json().get("next_due_at").asLong()).isEqualTo(occurrences.get(0).createdAt());
        assertThat(summary.json().get("last_due_at").asLong()).isEqualTo(occurrences.get(2).createdAt());
        assertThat(api.call("GET", "/v1/scheduled-messages/series/" + series).as(BOB).send().error())
                .as("another owner's series is not found").isEqualTo("not_found");
        assertThat(api.call("GET", "/v1/scheduled-messages/series/nope").as(ALICE).send().status()).isEqualTo(404);
        assertThat(api.call("GET", "/v1/scheduled-messages?series=" + series).as(BOB).send().json().get("items"))
                .isEmpty();
        assertThat(api.call("GET", "/v1/scheduled-messages?series=nope").as(ALICE).send().error())
                .isEqualTo("invalid_request");
    }

    @Test
    void cancelBySeries_cancelsEveryPendingOccurrenceAndCountsTheOneBeingSent() {
        List<String> items = List.of(json(api.message(ALICE, Duration.ofMinutes(1))),
                json(api.message(ALICE, Duration.ofDays(7))), json(api.message(ALICE, Duration.ofDays(14))));
        ApiFixture.Reply created = post(ALICE, BATCH, batch(items, ",\"series\":true"));
        String series = created.json().get("series_id").asText();
        String sendingId = created.json().get("results").get(0).get("item").get("id").asText();
        api.sending(sendingId);

        ApiFixture.Reply bobs = post(BOB, CANCEL, "{\"series\":\"" + series + "\"}");
        ApiFixture.Reply reply = post(ALICE, CANCEL, "{\"series\":\"" + series + "\"}");
        ApiFixture.Reply summary = api.call("GET", "/v1/scheduled-messages/series/" + series).as(ALICE).send();

        assertThat(bobs.json().get("cancelled").asInt()).as("another owner cancels nothing").isZero();
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.json().get("cancelled").asInt()).isEqualTo(2);
        assertThat(reply.json().get("sending").asInt()).isEqualTo(1);
        assertThat(summary.json().get("pending").asInt()).as("only the one being sent").isEqualTo(1);
        assertThat(summary.json().get("cancelled").asInt()).isEqualTo(2);
        assertThat(api.stored(sendingId).state()).isInstanceOf(ScheduleState.Sending.class);
    }

    @Test
    void cancelByChannelAndByDueRange_cancelOnlyTheOwnersMatchingPendingMessages() {
        String ops = api.create(ApiFixture.event(ALICE, api.clock.now().plusSeconds(3600).getEpochSecond(), 9,
                List.of(List.of("h", "ops")), "ops 1")).json().get("id").asText();
        String bobsOps = api.create(ApiFixture.event(BOB, api.clock.now().plusSeconds(3600).getEpochSecond(), 9,
                List.of(List.of("h", "ops")), "bob's ops")).json().get("id").asText();
        String early = api.create(api.message(ALICE, Duration.ofHours(2))).json().get("id").asText();
        String inRange = api.create(api.message(ALICE, Duration.ofHours(3))).json().get("id").asText();
        String late = api.create(api.message(ALICE, Duration.ofHours(5))).json().get("id").asText();
        String bobsInRange = api.create(api.message(BOB, Duration.ofHours(3))).json().get("id").asText();
        long from = api.clock.now().plusSeconds(3 * 3600).getEpochSecond();
        long to = api.clock.now().plusSeconds(4 * 3600).getEpochSecond();

        ApiFixture.Reply byChannel = post(ALICE, CANCEL, "{\"channel\":\"ops\"}");
        ApiFixture.Reply byRange = post(ALICE, CANCEL, "{\"due_after\":" + from + ",\"due_before\":" + to + "}");
        ApiFixture.Reply again = post(ALICE, CANCEL, "{\"channel\":\"ops\"}");

        assertThat(byChannel.json().get("cancelled").asInt()).isEqualTo(1);
        assertThat(byRange.json().get("cancelled").asInt()).isEqualTo(1);
        assertThat(again.json().get("cancelled").asInt()).as("nothing left to cancel").isZero();
        assertThat(stateOf(ops)).isEqualTo("cancelled");
        assertThat(stateOf(inRange)).isEqualTo("cancelled");
        assertThat(List.of(stateOf(early), stateOf(late), stateOf(bobsOps), stateOf(bobsInRange)))
                .containsOnly("scheduled");
        assertThat(api.stored(ops).event()).as("the payload is deleted at once").isEmpty();
    }

    @Test
    void cancelMatching_badSelections_areRefusedAndChangeNothing() {
        String id = api.create(api.message(ALICE, Duration.ofHours(2))).json().get("id").asText();
        List<String> bodies = List.of("", "{}", "[]", "{\"owner\":\"x\"}", "{\"channel\":7}", "{\"series\":\"nope\"}",
                "{\"due_after\":20,\"due_before\":10}", "{\"due_before\":-1}", "{\"due_after\":\"soon\"}",
                "{\"channel\":null}");

        for (String body : bodies) {
            ApiFixture.Reply reply = post(ALICE, CANCEL, body);

            assertThat(reply.status()).as(body + ": " + reply.text()).isEqualTo(400);
            assertThat(reply.error()).as(body).isEqualTo("invalid_request");
        }
        assertThat(stateOf(id)).isEqualTo("scheduled");
    }

    @Test
    void cancelMatching_ownerWriteRateUsedUp_is429AndCancelsNothing() {
        String id = api.create(api.message(ALICE, Duration.ofHours(2))).json().get("id").asText();
        api.writes.allow(ALICE, 0, Duration.ofSeconds(3));

        ApiFixture.Reply reply = post(ALICE, CANCEL, "{\"channel\":\"" + CHANNEL + "\"}");

        assertThat(reply.status()).isEqualTo(429);
        assertThat(reply.header("Retry-After")).isEqualTo("3");
        assertThat(stateOf(id)).isEqualTo("scheduled");
    }

    private String stateOf(String id) {
        return api.stored(id).state().wireName();
    }

    private static List<Integer> statuses(JsonNode results) {
        List<Integer> statuses = new ArrayList<>();
        results.forEach(result -> statuses.add(result.get("status").asInt()));
        return statuses;
    }

    private static List<String> errors(JsonNode results) {
        return IntStream.range(0, results.size()).mapToObj(i -> results.get(i).hasNonNull("error")
                ? results.get(i).get("error").asText() : null).collect(Collectors.toList());
    }
}

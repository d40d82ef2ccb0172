package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.BOB;
import static buzz.scheduled.adapters.http.ApiFixture.CHANNEL;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static buzz.scheduled.adapters.http.ApiFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The limits one key may use (issue 17) over HTTP: whole-event and tag limits at create and edit, the per-owner write
 * rate, and the list page's byte budget. Every refusal has the error shape and stores nothing.
 */
class OwnerLimitsRoutesTest {
    private ApiFixture api = new ApiFixture();

    @AfterEach
    void stop() {
        api.close();
    }

    private ApiFixture.Reply post(NostrEvent event) {
        return api.call("POST", "/v1/scheduled-messages").as(event.pubkey()).body(envelope(event)).send();
    }

    private NostrEvent tagged(int tags, String value) {
        List<List<String>> all = new ArrayList<>();
        all.add(List.of("h", CHANNEL));
        for (int i = 1; i < tags; i++) {
            all.add(List.of("t", value + i));
        }
        return event(ALICE, api.clock.now().plus(Duration.ofHours(1)).getEpochSecond(), 9, all, "hi");
    }

    private static void assertProblem(ApiFixture.Reply reply, int status, String code, String... inMessage) {
        assertThat(reply.status()).as(reply.text()).isEqualTo(status);
        assertThat(reply.header("Content-Type")).startsWith("application/json");
        assertThat(reply.json().size()).as(reply.text()).isEqualTo(2);
        assertThat(reply.error()).isEqualTo(code);
        assertThat(reply.json().get("message").asText()).contains(inMessage);
    }

    @Test
    void create_moreTagsThanTheLimit_answers413TooLargeNamingTheLimit_andStoresNothing() {
        ApiFixture.Reply reply = post(tagged(ApiFixture.MAX_EVENT_TAGS + 1, "x"));

        assertProblem(reply, 413, "too_large", ApiFixture.MAX_EVENT_TAGS + 1 + " tags",
                "limit is " + ApiFixture.MAX_EVENT_TAGS + " tags");
        assertThat(api.store.size()).isZero();
        assertThat(post(tagged(ApiFixture.MAX_EVENT_TAGS, "x")).status()).isEqualTo(201);
    }

    @Test
    void create_wholeEventOverTheLimitThroughTags_answers413TooLarge_thoughTheContentIsSmall() {
        NostrEvent event = tagged(ApiFixture.MAX_EVENT_TAGS, "v".repeat(400));
        assertThat(event.content().length()).isLessThan(ApiFixture.MAX_CONTENT_BYTES);
        int bytes = NostrEventJson.write(event).getBytes(StandardCharsets.UTF_8).length;

        ApiFixture.Reply reply = post(event);

        assertProblem(reply, 413, "too_large", "is " + bytes + " bytes",
                "the limit is " + ApiFixture.MAX_EVENT_BYTES + " bytes");
        assertThat(api.store.size()).isZero();
    }

    @Test
    void edit_withTooManyTags_answers413_andKeepsTheStoredRevision() {
        String id = api.create(api.message(ALICE, Duration.ofHours(1))).json().get("id").asText();

        ApiFixture.Reply reply = api.call("PUT", "/v1/scheduled-messages/" + id).as(ALICE)
                .header("If-Match", "\"1\"").body(envelope(tagged(ApiFixture.MAX_EVENT_TAGS + 1, "x"))).send();

        assertProblem(reply, 413, "too_large", "limit is " + ApiFixture.MAX_EVENT_TAGS + " tags");
        assertThat(api.store.revisions(ScheduleId.parse(id))).containsExactly(new Revision(1));
    }

    @Test
    void writesOverTheOwnersRate_answer429RateLimitedWithRetryAfter_andAnotherOwnerIsUnaffected() {
        api.writes.allow(ALICE, 2, Duration.ofMillis(1500));
        String id = api.create(api.message(ALICE, Duration.ofHours(1))).json().get("id").asText();
        api.create(api.message(ALICE, Duration.ofHours(2)));

        ApiFixture.Reply create = post(api.message(ALICE, Duration.ofHours(3)));
        ApiFixture.Reply cancel = api.call("DELETE", "/v1/scheduled-messages/" + id).as(ALICE).send();
        ApiFixture.Reply sendNow = api.call("POST", "/v1/scheduled-messages/" + id + "/send-now").as(ALICE).send();
        ApiFixture.Reply bobs = post(api.message(BOB, Duration.ofHours(3)));

        assertProblem(create, 429, "rate_limited", "allowed in 2 s");
        assertThat(create.header("Retry-After")).isEqualTo("2");
        assertProblem(cancel, 429, "rate_limited", "retry after 2 s");
        assertThat(cancel.header("Retry-After")).isEqualTo("2");
        assertProblem(sendNow, 429, "rate_limited", "retry after 2 s");
        assertThat(api.store.count(ALICE)).as("nothing stored").isEqualTo(2);
        assertThat(api.store.find(ScheduleId.parse(id)).orElseThrow().state().wireName()).isEqualTo("scheduled");
        assertThat(bobs.status()).as(bobs.text()).isEqualTo(201);
    }

    @Test
    void list_pageStaysWithinItsByteBudget_andTheCursorsReachEveryItemOnce() {
        api.close();
        int budget = 8 * 1024;
        api = new ApiFixture(settings -> settings.withOwnerLimits(withPageBytes(budget)),
                () -> new ReadinessCheck.Readiness.Ready());
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            created.add(api.create(api.message(ALICE, Duration.ofHours(1 + i), "c".repeat(2000))).json()
                    .get("id").asText());
        }

        List<String> listed = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            ApiFixture.Reply page = api.call("GET", "/v1/scheduled-messages?limit=50"
                    + (cursor == null ? "" : "&cursor=" + cursor)).as(ALICE).send();
            assertThat(page.status()).as(page.text()).isEqualTo(200);
            JsonNode items = page.json().get("items");
            assertThat(items.size()).isBetween(1, 4);
            assertThat(page.text().getBytes(StandardCharsets.UTF_8).length).as(page.text()).isLessThanOrEqualTo(budget);
            items.forEach(item -> listed.add(item.get("id").asText()));
            cursor = page.json().get("next_cursor").isNull() ? null : page.json().get("next_cursor").asText();
            pages++;
        } while (cursor != null && pages < 10);

        assertThat(listed).containsExactlyElementsOf(created);
        assertThat(pages).isGreaterThan(1);
    }

    @Test
    void list_itemLargerThanTheBudgetAlone_isStillListedOnePerPage() {
        api.close();
        api = new ApiFixture(settings -> settings.withOwnerLimits(withPageBytes(1000)),
                () -> new ReadinessCheck.Readiness.Ready());
        api.create(api.message(ALICE, Duration.ofHours(1), "d".repeat(1500)));
        api.create(api.message(ALICE, Duration.ofHours(2), "e".repeat(1500)));

        ApiFixture.Reply first = api.call("GET", "/v1/scheduled-messages").as(ALICE).send();
        ApiFixture.Reply second = api.call("GET", "/v1/scheduled-messages?cursor="
                + first.json().get("next_cursor").asText()).as(ALICE).send();

        assertThat(first.json().get("items").size()).isEqualTo(1);
        assertThat(first.json().get("items").get(0).get("event").get("content").asText()).startsWith("d");
        assertThat(second.json().get("items").size()).isEqualTo(1);
        assertThat(second.json().get("items").get(0).get("event").get("content").asText()).startsWith("e");
        assertThat(second.json().get("next_cursor").isNull()).isTrue();
    }

    @Test
    void info_advertisesTheOwnerLimits() {
        JsonNode limitation = api.call("GET", "/v1/info").send().json().get("limitation");

        assertThat(limitation.get("max_event_bytes").asInt()).isEqualTo(OwnerApiLimits.DEFAULTS.maxEventBytes());
        assertThat(limitation.get("max_event_tags").asInt()).isEqualTo(1000);
        assertThat(limitation.get("owner_writes_per_minute").asInt()).isEqualTo(60);
        assertThat(limitation.get("owner_write_burst").asInt()).isEqualTo(30);
        assertThat(limitation.get("channel_window_seconds").asInt()).isEqualTo(300);
        assertThat(limitation.get("max_per_owner_channel_window").asInt()).isEqualTo(30);
        assertThat(limitation.get("max_per_channel_window").asInt()).isEqualTo(300);
    }

    private static OwnerApiLimits withPageBytes(int bytes) {
        OwnerApiLimits d = OwnerApiLimits.DEFAULTS;
        return new OwnerApiLimits(d.maxEventBytes(), d.maxEventTags(), d.writesPerMinute(), d.writeBurst(),
                d.channelWindowPerOwner(), d.channelWindowTotal(), d.channelWindow(), bytes);
    }
}

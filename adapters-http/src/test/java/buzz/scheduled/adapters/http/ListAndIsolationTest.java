package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.BOB;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/scheduled-messages} filters and cursor, and owner isolation on every route (docs/openapi.yaml, info).
 */
class ListAndIsolationTest {
    private ApiFixture api;
    /** Alice's ids, ordered by due time (1 h, 2 h, … 4 h). */
    private final List<String> ids = new ArrayList<>();

    @BeforeEach
    void start() {
        api = new ApiFixture();
        // Created out of due order, so the list's order is the due order, not the insertion order.
        for (int hours : new int[] {3, 1, 4, 2}) {
            ids.add(api.create(api.message(ALICE, Duration.ofHours(hours))).json().get("id").asText());
        }
        ids.sort((a, b) -> api.stored(a).dueAt().compareTo(api.stored(b).dueAt()));
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private ApiFixture.Reply list(PublicKey who, String query) {
        return api.call("GET", "/v1/scheduled-messages" + query).as(who).send();
    }

    private static List<String> itemIds(ApiFixture.Reply reply) {
        List<String> out = new ArrayList<>();
        reply.json().get("items").forEach(item -> out.add(item.get("id").asText()));
        return out;
    }

    @Test
    void list_default_answersNonTerminalByDueTime() {
        api.call("DELETE", "/v1/scheduled-messages/" + ids.get(0)).as(ALICE).send();

        ApiFixture.Reply reply = list(ALICE, "");

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(itemIds(reply)).containsExactly(ids.get(1), ids.get(2), ids.get(3));
        assertThat(reply.json().get("next_cursor").isNull()).isTrue();
    }

    @Test
    void list_stateFilter_answersThoseStates() {
        api.call("DELETE", "/v1/scheduled-messages/" + ids.get(2)).as(ALICE).send();

        assertThat(itemIds(list(ALICE, "?state=cancelled"))).containsExactly(ids.get(2));
        assertThat(itemIds(list(ALICE, "?state=cancelled,scheduled"))).containsExactlyElementsOf(ids);
        assertThat(itemIds(list(ALICE, "?state=published"))).isEmpty();
    }

    @Test
    void list_channelFilter_answersThatChannel() {
        String other = api.create(ApiFixture.event(ALICE, ApiFixture.START.getEpochSecond() + 60, 9,
                List.of(List.of("h", "random")), "elsewhere")).json().get("id").asText();

        assertThat(itemIds(list(ALICE, "?channel=random"))).containsExactly(other);
        assertThat(itemIds(list(ALICE, "?channel=general"))).containsExactlyElementsOf(ids);
    }

    @Test
    void list_pages_followTheCursorToTheEnd() {
        ApiFixture.Reply first = list(ALICE, "?limit=3");
        String cursor = first.json().get("next_cursor").asText();

        ApiFixture.Reply second = list(ALICE, "?limit=3&cursor=" + cursor);

        assertThat(itemIds(first)).containsExactly(ids.get(0), ids.get(1), ids.get(2));
        assertThat(itemIds(second)).containsExactly(ids.get(3));
        assertThat(second.json().get("next_cursor").isNull()).isTrue();
    }

    @Test
    void list_tamperedCursor_answers400InvalidRequest() {
        String cursor = list(ALICE, "?limit=1").json().get("next_cursor").asText();
        String payload = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
        String edited = Base64.getUrlEncoder().withoutPadding().encodeToString(
                payload.replaceFirst(":(\\d)", ":9$1").getBytes(StandardCharsets.US_ASCII));

        for (String bad : List.of(edited, cursor.substring(1), "not-a-cursor", cursor + "A")) {
            ApiFixture.Reply reply = list(ALICE, "?cursor=" + bad);
            assertThat(reply.status()).as(bad).isEqualTo(400);
            assertThat(reply.error()).isEqualTo("invalid_request");
            assertThat(reply.json().get("message").asText()).contains("cursor");
        }
    }

    @Test
    void list_cursorWithValidCheckButImpossibleDueTime_answers400InvalidRequest() {
        String forged = ListCursor.encode(new buzz.scheduled.application.port.in.ListMessagesUseCase.Cursor(
                java.time.Instant.ofEpochSecond(10_000_000_000_000L),
                buzz.scheduled.domain.schedule.ScheduleId.parse("00000000-0000-4000-8000-000000000001")));

        ApiFixture.Reply reply = list(ALICE, "?cursor=" + forged);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.error()).isEqualTo("invalid_request");
        assertThat(reply.json().get("message").asText()).contains("cursor");
    }

    @Test
    void list_channelWithControlCharacter_answers400SayingChannel() {
        ApiFixture.Reply reply = list(ALICE, "?channel=%00");

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.error()).isEqualTo("invalid_request");
        assertThat(reply.json().get("message").asText()).contains("channel");
    }

    @Test
    void list_badParameters_answer400SayingWhich() {
        record Case(String query, String says) {
        }
        for (Case c : List.of(new Case("?limit=0", "limit"), new Case("?limit=201", "limit"),
                new Case("?limit=ten", "limit"), new Case("?state=done", "\"done\""),
                new Case("?state=", "state"), new Case("?status=scheduled", "\"status\""),
                new Case("?limit=1&limit=2", "limit"))) {
            ApiFixture.Reply reply = list(ALICE, c.query());
            assertThat(reply.status()).as(c.query()).isEqualTo(400);
            assertThat(reply.error()).isEqualTo("invalid_request");
            assertThat(reply.json().get("message").asText()).as(c.query()).contains(c.says());
        }
    }

    @Test
    void list_limit200_isAccepted() {
        assertThat(list(ALICE, "?limit=200").status()).isEqualTo(200);
    }

    @Test
    void otherOwner_getsNotFoundOnEveryRouteAndAnEmptyList() {
        String id = ids.get(0);
        String path = "/v1/scheduled-messages/" + id;
        ScheduledMessage before = api.stored(id);
        String missing = "/v1/scheduled-messages/00000000-0000-4000-8000-0000000000ff";

        List<ApiFixture.Reply> replies = List.of(
                api.call("GET", path).as(BOB).send(),
                api.call("PUT", path).as(BOB).header("If-Match", "\"1\"")
                        .body(envelope(api.message(BOB, Duration.ofHours(5)))).send(),
                api.call("DELETE", path).as(BOB).send(),
                api.call("POST", path + "/send-now").as(BOB).send(),
                api.call("POST", path + "/send-now").as(BOB).body(envelope(api.message(BOB, Duration.ZERO))).send());
        ApiFixture.Reply missingReply = api.call("GET", missing).as(BOB).send();

        for (ApiFixture.Reply reply : replies) {
            assertThat(reply.status()).as(reply.text()).isEqualTo(404);
            assertThat(reply.error()).isEqualTo("not_found");
            assertThat(reply.json().get("message").asText().replace(id, "ID"))
                    .isEqualTo(missingReply.json().get("message").asText()
                            .replace("00000000-0000-4000-8000-0000000000ff", "ID"));
        }
        assertThat(api.stored(id)).isEqualTo(before);
        JsonNode bobsList = list(BOB, "?state=scheduled,claimed,sending,published,cancelled,failed").json();
        assertThat(bobsList.get("items")).isEmpty();
        assertThat(api.store.count(BOB)).isZero();
    }
}

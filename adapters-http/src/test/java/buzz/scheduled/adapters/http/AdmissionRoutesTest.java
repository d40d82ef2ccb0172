package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.BOB;
import static buzz.scheduled.adapters.http.ApiFixture.CHANNEL;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static buzz.scheduled.adapters.http.ApiFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.RefusalCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/scheduled-messages}: every admission refusal of docs/openapi.yaml over HTTP, each storing nothing.
 */
class AdmissionRoutesTest {
    private ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private ApiFixture.Reply post(NostrEvent event) {
        return api.call("POST", "/v1/scheduled-messages").as(ALICE).body(envelope(event)).send();
    }

    private ApiFixture.Reply postRaw(String body) {
        return api.call("POST", "/v1/scheduled-messages").as(ALICE).body(body).send();
    }

    private static com.fasterxml.jackson.databind.JsonNode readJson(String text) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void assertRefused(ApiFixture.Reply reply, int status, String code) {
        assertThat(reply.status()).as(reply.text()).isEqualTo(status);
        assertThat(reply.error()).as(reply.text()).isEqualTo(code);
        assertThat(reply.json().get("message").asText()).isNotBlank();
        assertThat(reply.header("Content-Type")).startsWith("application/json");
        assertThat(api.store.size()).as("nothing stored").isZero();
    }

    @Test
    void create_validEvent_answers201WithItemLocationAndEtag() {
        NostrEvent event = api.message(ALICE, Duration.ofHours(1), "see you at noon");

        ApiFixture.Reply reply = post(event);

        assertThat(reply.status()).as(reply.text()).isEqualTo(201);
        String id = reply.json().get("id").asText();
        assertThat(reply.header("Location")).isEqualTo("https://sched.example.test/v1/scheduled-messages/" + id);
        assertThat(reply.header("ETag")).isEqualTo("\"1\"");
        assertThat(reply.json().fieldNames()).toIterable().containsExactly("id", "revision", "state", "reason",
                "channel", "event_id", "due_at", "attempts", "created_at", "updated_at", "published_at", "series_id",
                "event");
        assertThat(reply.json().get("series_id").isNull()).as("a message created alone is in no series").isTrue();
        assertThat(reply.json().get("revision").asInt()).isEqualTo(1);
        assertThat(reply.json().get("state").asText()).isEqualTo("scheduled");
        assertThat(reply.json().get("reason").isNull()).isTrue();
        assertThat(reply.json().get("channel").asText()).isEqualTo(CHANNEL);
        assertThat(reply.json().get("event_id").asText()).isEqualTo(event.id().hex());
        assertThat(reply.json().get("due_at").asLong()).isEqualTo(event.createdAt());
        assertThat(reply.json().get("attempts").asInt()).isZero();
        assertThat(reply.json().get("created_at").asLong()).isEqualTo(ApiFixture.START.getEpochSecond());
        assertThat(reply.json().get("updated_at").asLong()).isEqualTo(ApiFixture.START.getEpochSecond());
        assertThat(reply.json().get("published_at").isNull()).isTrue();
        assertThat(reply.json().get("event")).isEqualTo(readJson(NostrEventJson.write(event)));
        assertThat(api.store.count(ALICE)).isEqualTo(1);
    }

    @Test
    void create_withoutAuthorization_answers401NamingTheCheck() {
        ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages")
                .body(envelope(api.message(ALICE, Duration.ofHours(1)))).send();

        assertRefused(reply, 401, "unauthorized");
        assertThat(reply.json().get("message").asText()).contains("Authorization header is missing");
        assertThat(reply.header("WWW-Authenticate")).isEqualTo("Nostr");
    }

    @Test
    void create_authForAnotherUrl_answers401() {
        String body = envelope(api.message(ALICE, Duration.ofHours(1)));
        String header = api.nip98(ALICE, "POST", "http://127.0.0.1:" + api.port + "/v1/scheduled-messages",
                body.getBytes(java.nio.charset.StandardCharsets.UTF_8), true);

        ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").authorization(header).body(body).send();

        assertRefused(reply, 401, "unauthorized");
        assertThat(reply.json().get("message").asText()).contains("u tag");
    }

    @Test
    void create_authForAnotherBody_answers401() {
        String signedBody = envelope(api.message(ALICE, Duration.ofHours(1)));
        String header = api.nip98(ALICE, "POST", ApiFixture.BASE + "/v1/scheduled-messages",
                signedBody.getBytes(java.nio.charset.StandardCharsets.UTF_8), true);

        ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").authorization(header)
                .body(envelope(api.message(ALICE, Duration.ofHours(2)))).send();

        assertRefused(reply, 401, "unauthorized");
        assertThat(reply.json().get("message").asText()).contains("payload");
    }

    @Test
    void create_replayedAuthorization_answers401() {
        String body = envelope(api.message(ALICE, Duration.ofHours(1)));
        String header = api.nip98(ALICE, "POST", ApiFixture.BASE + "/v1/scheduled-messages",
                body.getBytes(java.nio.charset.StandardCharsets.UTF_8), true);
        assertThat(api.call("POST", "/v1/scheduled-messages").authorization(header).body(body).send().status())
                .isEqualTo(201);

        ApiFixture.Reply replay = api.call("POST", "/v1/scheduled-messages").authorization(header).body(body).send();

        assertThat(replay.status()).isEqualTo(401);
        assertThat(replay.json().get("message").asText()).contains("replay");
        assertThat(api.store.size()).isEqualTo(1);
    }

    @Test
    void create_staleAuthorization_answers401() {
        String body = envelope(api.message(ALICE, Duration.ofHours(1)));
        String header = api.nip98(ALICE, "POST", ApiFixture.BASE + "/v1/scheduled-messages",
                body.getBytes(java.nio.charset.StandardCharsets.UTF_8), true);
        api.clock.advance(Duration.ofSeconds(61));

        assertRefused(api.call("POST", "/v1/scheduled-messages").authorization(header).body(body).send(),
                401, "unauthorized");
    }

    @Test
    void create_unauthenticatedAndMalformed_answers401First() {
        ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").body("{not json").send();

        assertRefused(reply, 401, "unauthorized");
    }

    @Test
    void create_bodyNotJson_answers400InvalidRequestSayingWhy() {
        ApiFixture.Reply reply = postRaw("{\"event\": ");

        assertRefused(reply, 400, "invalid_request");
        assertThat(reply.json().get("message").asText()).contains("not valid JSON");
    }

    @Test
    void create_emptyBody_answers400InvalidRequest() {
        assertRefused(postRaw(""), 400, "invalid_request");
    }

    @Test
    void create_bodyWithUnknownMember_answers400InvalidRequest() {
        String body = "{\"event\":" + NostrEventJson.write(api.message(ALICE, Duration.ofHours(1))) + ",\"when\":1}";

        ApiFixture.Reply reply = postRaw(body);

        assertRefused(reply, 400, "invalid_request");
        assertThat(reply.json().get("message").asText()).contains("\"when\"");
    }

    @Test
    void create_bodyNotAnObject_answers400InvalidRequest() {
        assertRefused(postRaw("[1,2]"), 400, "invalid_request");
    }

    @Test
    void create_bodyWithoutEvent_answers400InvalidRequest() {
        assertRefused(postRaw("{}"), 400, "invalid_request");
    }

    @Test
    void create_duplicateKeyInEnvelope_answers400InvalidRequest() {
        String event = NostrEventJson.write(api.message(ALICE, Duration.ofHours(1)));

        ApiFixture.Reply reply = postRaw("{\"event\":" + event + ",\"event\":" + event + "}");

        assertRefused(reply, 400, "invalid_request");
        assertThat(reply.json().get("message").asText()).contains("duplicate key");
    }

    @Test
    void create_deeplyNestedBody_answers400InvalidRequestNamingTheDepth() {
        String body = "[".repeat(100) + "]".repeat(100);

        ApiFixture.Reply reply = postRaw(body);

        assertRefused(reply, 400, "invalid_request");
        assertThat(reply.json().get("message").asText()).contains("nesting");
    }

    @Test
    void create_eventWithFloatCreatedAt_answers400InvalidRequest() {
        String event = NostrEventJson.write(api.message(ALICE, Duration.ofHours(1)));
        String floated = event.replaceFirst("\"created_at\":(\\d+)", "\"created_at\":$1.0");

        ApiFixture.Reply reply = postRaw("{\"event\":" + floated + "}");

        assertRefused(reply, 400, "invalid_request");
        assertThat(reply.json().get("message").asText()).contains("not an integer");
    }

    @Test
    void create_eventMissingField_answers400InvalidEvent() {
        String event = NostrEventJson.write(api.message(ALICE, Duration.ofHours(1)));
        String withoutSig = event.replaceFirst(",\"sig\":\"[0-9a-f]+\"", "");

        ApiFixture.Reply reply = postRaw("{\"event\":" + withoutSig + "}");

        assertRefused(reply, 400, "invalid_event");
        assertThat(reply.json().get("message").asText()).contains("\"sig\" is missing");
    }

    @Test
    void create_eventWithUppercaseHex_answers400InvalidEvent() {
        NostrEvent event = api.message(ALICE, Duration.ofHours(1));
        String wire = NostrEventJson.write(event).replace(event.id().hex(), event.id().hex().toUpperCase());

        ApiFixture.Reply reply = postRaw("{\"event\":" + wire + "}");

        assertRefused(reply, 400, "invalid_event");
        assertThat(reply.json().get("message").asText()).contains("uppercase");
    }

    @Test
    void create_eventWithBadSignature_answers400InvalidEvent() {
        NostrEvent event = api.message(ALICE, Duration.ofHours(1));
        api.signatures.markInvalid(event.id(), "signature does not verify");

        ApiFixture.Reply reply = post(event);

        assertRefused(reply, 400, "invalid_event");
        assertThat(reply.json().get("message").asText()).contains("signature does not verify");
    }

    @Test
    void create_eventOfAnotherAuthor_answers403PubkeyMismatch() {
        assertRefused(post(api.message(BOB, Duration.ofHours(1))), 403, "pubkey_mismatch");
    }

    @Test
    void create_kindNotAllowed_answers422() {
        NostrEvent event = event(ALICE, ApiFixture.START.getEpochSecond() + 3600, 7,
                List.of(List.of("h", CHANNEL)), "+");

        assertRefused(post(event), 422, "kind_not_allowed");
    }

    @Test
    void create_noChannelTag_answers422MissingChannel() {
        NostrEvent event = event(ALICE, ApiFixture.START.getEpochSecond() + 3600, 9, List.of(), "hi");

        assertRefused(post(event), 422, "missing_channel");
    }

    @Test
    void create_twoChannelTags_answers422MissingChannel() {
        NostrEvent event = event(ALICE, ApiFixture.START.getEpochSecond() + 3600, 9,
                List.of(List.of("h", "a"), List.of("h", "b")), "hi");

        assertRefused(post(event), 422, "missing_channel");
    }

    @Test
    void create_nip70ProtectedEvent_answers422ProtectedEventSayingWhyAndStoresNothing() {
        NostrEvent event = event(ALICE, ApiFixture.START.getEpochSecond() + 3600, 9,
                List.of(List.of("h", CHANNEL), List.of("-")), "only from its author");

        ApiFixture.Reply reply = post(event);

        assertRefused(reply, 422, "protected_event");
        assertThat(reply.json().get("message").asText()).contains("NIP-70").contains("only from its author");
    }

    @Test
    void create_contentOverLimit_answers413TooLarge() {
        NostrEvent event = api.message(ALICE, Duration.ofHours(1), "x".repeat(ApiFixture.MAX_CONTENT_BYTES + 1));

        ApiFixture.Reply reply = post(event);

        assertRefused(reply, 413, "too_large");
        assertThat(reply.json().get("message").asText()).contains(Integer.toString(ApiFixture.MAX_CONTENT_BYTES));
    }

    @Test
    void create_bodyOverCap_answers413TooLargeUnread() {
        String body = "{\"event\":\"" + "x".repeat(api.settings.maxBodyBytes()) + "\"}";

        ApiFixture.Reply reply = postRaw(body);

        assertRefused(reply, 413, "too_large");
        assertThat(reply.json().get("message").asText()).contains(Integer.toString(api.settings.maxBodyBytes()));
    }

    @Test
    void create_expiresBeforeDue_answers422() {
        long due = ApiFixture.START.getEpochSecond() + 3600;
        NostrEvent event = event(ALICE, due, 9, List.of(List.of("h", CHANNEL), List.of("expiration",
                Long.toString(due))), "short-lived");

        assertRefused(post(event), 422, "expires_before_due");
    }

    @Test
    void create_dueNow_answers422TimeInPast() {
        assertRefused(post(api.message(ALICE, Duration.ZERO)), 422, "time_in_past");
    }

    @Test
    void create_dueBeyondHorizon_answers422TimeTooFar() {
        assertRefused(post(api.message(ALICE, Duration.ofDays(120).plusSeconds(1))), 422, "time_too_far");
    }

    @Test
    void create_deletedChannel_answers422ChannelNotFound() {
        api.store.addTombstone(new Channel(CHANNEL));

        assertRefused(post(api.message(ALICE, Duration.ofHours(1))), 422, "channel_not_found");
    }

    @Test
    void create_accessPolicyDenies_answersItsCode() {
        record Case(RefusalCode code, int status) {
        }
        for (Case c : List.of(new Case(RefusalCode.IS_ARCHIVED, 403), new Case(RefusalCode.NOT_IN_CHANNEL, 403),
                new Case(RefusalCode.RESTRICTED, 403), new Case(RefusalCode.CHANNEL_NOT_FOUND, 422))) {
            api.access.set(ALICE, new Channel(CHANNEL), new AccessDecision.Denied(c.code(), "policy says " + c.code()));

            ApiFixture.Reply reply = post(api.message(ALICE, Duration.ofHours(1)));

            assertRefused(reply, c.status(), c.code().wireName());
            assertThat(reply.json().get("message").asText()).isEqualTo("policy says " + c.code());
        }
    }

    @Test
    void create_accessPolicyUnavailable_answers503WithRetryAfter() {
        api.access.set(ALICE, new Channel(CHANNEL), new AccessDecision.Unavailable("roster not loaded"));

        ApiFixture.Reply reply = post(api.message(ALICE, Duration.ofHours(1)));

        assertRefused(reply, 503, "unavailable");
        assertThat(reply.header("Retry-After")).isEqualTo("2");
    }

    @Test
    void create_overPendingLimit_answers429TooManyPending() {
        for (int i = 0; i < ApiFixture.MAX_PENDING; i++) {
            api.create(api.message(ALICE, Duration.ofHours(1 + i)));
        }

        ApiFixture.Reply reply = post(api.message(ALICE, Duration.ofHours(10)));

        assertThat(reply.status()).as(reply.text()).isEqualTo(429);
        assertThat(reply.error()).isEqualTo("too_many_pending");
        assertThat(api.store.size()).isEqualTo(ApiFixture.MAX_PENDING);
    }

    @Test
    void create_ownerFullInTheChannelWindow_answers429RestrictedTooMany_butAnotherOwnerIsAdmitted() {
        for (int i = 0; i < ApiFixture.MAX_PER_WINDOW; i++) {
            api.create(api.message(ALICE, Duration.ofHours(1).plusSeconds(i)));
        }

        ApiFixture.Reply reply = post(api.message(ALICE, Duration.ofHours(1).plusSeconds(10)));
        ApiFixture.Reply bobs = api.call("POST", "/v1/scheduled-messages").as(BOB)
                .body(envelope(api.message(BOB, Duration.ofHours(1).plusSeconds(10)))).send();

        assertThat(reply.status()).as(reply.text()).isEqualTo(429);
        assertThat(reply.error()).isEqualTo("restricted_too_many");
        assertThat(reply.json().get("message").asText()).contains("you already have " + ApiFixture.MAX_PER_WINDOW);
        assertThat(bobs.status()).as(bobs.text()).isEqualTo(201);
        assertThat(api.store.count(ALICE)).isEqualTo(ApiFixture.MAX_PER_WINDOW);
    }

    @Test
    void create_channelWindowFullAcrossOwners_answers429RestrictedTooManyToEveryone() {
        for (int i = 0; i < ApiFixture.MAX_WINDOW_TOTAL; i++) {
            api.create(api.message(i == 0 ? ALICE : BOB, Duration.ofHours(1).plusSeconds(i)));
        }

        ApiFixture.Reply reply = post(api.message(ALICE, Duration.ofHours(1).plusSeconds(10)));

        assertThat(reply.status()).as(reply.text()).isEqualTo(429);
        assertThat(reply.error()).isEqualTo("restricted_too_many");
        assertThat(reply.json().get("message").asText()).contains("from all owners");
        assertThat(api.store.size()).isEqualTo(ApiFixture.MAX_WINDOW_TOTAL);
    }

    @Test
    void create_wrongContentType_answers415() {
        ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                .body(envelope(api.message(ALICE, Duration.ofHours(1))))
                .header("Content-Type", "text/plain").send();

        assertRefused(reply, 415, "invalid_request");
        assertThat(reply.json().get("message").asText()).contains("text/plain");
    }

    @Test
    void create_eventFailingSeveralRules_answersTheFirstInSpecOrder() {
        // Another author's event, wrong kind, no channel, in the past: ownership comes first.
        NostrEvent everythingWrong = event(BOB, ApiFixture.START.getEpochSecond() - 10, 7, List.of(), "x");
        assertRefused(post(everythingWrong), 403, "pubkey_mismatch");

        // Own event, wrong kind, no channel, in the past: kind comes next.
        assertRefused(post(event(ALICE, ApiFixture.START.getEpochSecond() - 10, 7, List.of(), "x")),
                422, "kind_not_allowed");

        // Own, right kind, no channel, in the past: channel before time.
        assertRefused(post(event(ALICE, ApiFixture.START.getEpochSecond() - 10, 9, List.of(), "x")),
                422, "missing_channel");
    }

    /** Nothing large is read from a caller who cannot sign (issue 17): the 401 comes while the body still arrives. */
    @Test
    void create_badHeaderWithABodyThatNeverEnds_isAnswered401BeforeTheBodyEnds() throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), api.port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/scheduled-messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Nostr bm90LWEtc2lnbmVkLWV2ZW50\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n400\r\n" + "x".repeat(1024) + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // The last chunk is never sent: an answer can only come from a server that did not wait for the body.
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII));
            String statusLine = in.readLine();

            assertThat(statusLine).isEqualTo("HTTP/1.1 401 Unauthorized");
        }
        assertThat(api.store.size()).isZero();
    }

    @Test
    void create_badHeaderWithADeclaredLengthOverTheCap_isAnswered413Unread() {
        ApiFixture.Reply reply = api.call("POST", "/v1/scheduled-messages")
                .body("{\"event\":\"" + "x".repeat(api.settings.maxBodyBytes()) + "\"}").send();

        assertThat(reply.status()).isEqualTo(413);
        assertThat(reply.error()).isEqualTo("too_large");
        assertThat(api.store.size()).isZero();
    }
}

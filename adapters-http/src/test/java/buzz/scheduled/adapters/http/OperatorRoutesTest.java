package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.BOB;
import static buzz.scheduled.adapters.http.ApiFixture.OPERATOR;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.service.AuthenticateRequestService;
import buzz.scheduled.application.service.OwnerMessagesService;
import buzz.scheduled.application.service.SchedulingSettings;
import buzz.scheduled.domain.nostr.Nip19;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator routes (docs/openapi.yaml, tag operator): who may call them, what they answer and what they change. */
class OperatorRoutesTest {
    private static final String RESERVATIONS = "/v1/reservations";
    private static final String GENERAL_DELETED = "/v1/admin/channels/general/deleted";

    private ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private String created(NostrEvent event) {
        return api.create(event).json().get("id").asText();
    }

    private List<ApiFixture.Call> everyOperatorRoute() {
        return List.of(
                api.call("GET", RESERVATIONS),
                api.call("POST", GENERAL_DELETED),
                api.call("POST", "/v1/admin/channels/general/members/" + ALICE.hex() + "/removed"),
                api.call("DELETE", "/v1/admin/owners/" + ALICE.hex()),
                api.call("DELETE", "/v1/admin/scheduled-messages?confirm=all"));
    }

    @Test
    void operatorRoutes_withoutAuthorization_answer401() {
        for (ApiFixture.Call call : everyOperatorRoute()) {
            ApiFixture.Reply reply = call.send();

            assertThat(reply.status()).as(reply.text()).isEqualTo(401);
            assertThat(reply.error()).isEqualTo("unauthorized");
        }
    }

    @Test
    void operatorRoutes_withABadSignature_answer401() {
        ApiFixture.Reply reply = api.call("GET", RESERVATIONS).authorization("Nostr bm90IGFuIGV2ZW50").send();

        assertThat(reply.status()).isEqualTo(401);
        assertThat(reply.json().get("message").asText()).startsWith("NIP-98 authentication failed");
    }

    @Test
    void operatorRoutes_asAnOwner_answer403AndChangeNothing() {
        String id = created(api.message(ALICE, Duration.ofHours(1)));

        for (ApiFixture.Call call : everyOperatorRoute()) {
            ApiFixture.Reply reply = call.as(ALICE).send();

            assertThat(reply.status()).as(reply.text()).isEqualTo(403);
            assertThat(reply.error()).isEqualTo("forbidden");
            assertThat(reply.json().get("message").asText()).contains(ALICE.hex()).contains("RELAY_OPERATOR_PUBKEYS");
        }
        assertThat(api.stored(id).state().wireName()).isEqualTo("scheduled");
        assertThat(api.store.channelDeleted(new Channel("general"))).isFalse();
    }

    @Test
    void operatorRoutes_whenNoOperatorIsConfigured_forbidEveryone() throws Exception {
        OwnerMessagesService owners = new OwnerMessagesService(api.store, api.store, api.store, api.signatures,
                api.access, new SequentialScheduleIds(), api.clock, DueWorkNotice.NONE, new SchedulingSettings(
                        new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 1024, Duration.ofDays(1)),
                        new CreateLimits(5, 5, Duration.ofMinutes(5)), Duration.ofSeconds(900)));
        HttpApi bare = new HttpApi(OwnerUseCases.of(owners), new AuthenticateRequestService(api.signatures, api.clock),
                () -> new ReadinessCheck.Readiness.Ready(), api.settings);
        int port = bare.start("127.0.0.1", 0);
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + RESERVATIONS))
                    .header("Authorization", api.nip98(OPERATOR, "GET", ApiFixture.BASE + RESERVATIONS, new byte[0],
                            false))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(response.body()).contains("\"error\":\"forbidden\"");
        } finally {
            bare.stop();
        }
    }

    @Test
    void reservations_followTheOverdueMessageUntilItIsPublished() {
        ApiFixture.Reply empty = api.call("GET", RESERVATIONS).as(OPERATOR).send();
        NostrEvent event = api.message(ALICE, Duration.ofMinutes(10));
        String id = created(event);
        ApiFixture.Reply waiting = api.call("GET", RESERVATIONS).as(OPERATOR).send();
        api.clock.advance(Duration.ofMinutes(11));
        ApiFixture.Reply overdue = api.call("GET", RESERVATIONS).as(OPERATOR).send();
        api.published(id);
        ApiFixture.Reply delivered = api.call("GET", RESERVATIONS).as(OPERATOR).send();

        assertThat(empty.status()).isEqualTo(200);
        assertThat(empty.text()).isEqualTo("{\"held_before\":null,\"overdue\":0,\"next_due\":null}");
        assertThat(waiting.text()).isEqualTo("{\"held_before\":null,\"overdue\":0,\"next_due\":"
                + event.createdAt() + "}");
        assertThat(overdue.text()).isEqualTo("{\"held_before\":" + event.createdAt() + ",\"overdue\":1,"
                + "\"next_due\":null}");
        assertThat(delivered.text()).isEqualTo(empty.text());
    }

    @Test
    void reservations_withAQueryOrABody_answer400() {
        ApiFixture.Reply query = api.call("GET", RESERVATIONS + "?at=1").as(OPERATOR).send();

        assertThat(query.status()).isEqualTo(400);
        assertThat(query.json().get("message").asText()).contains("unknown query parameter \"at\"");
    }

    @Test
    void channelDeleted_failsPendingItemsPurgesThemAndRefusesLaterAdmissions() {
        String alices = created(api.message(ALICE, Duration.ofHours(1)));
        String bobs = created(api.message(BOB, Duration.ofHours(2)));

        ApiFixture.Reply deleted = api.call("POST", GENERAL_DELETED).as(OPERATOR).send();
        ApiFixture.Reply again = api.call("POST", GENERAL_DELETED).as(OPERATOR).send();
        ApiFixture.Reply item = api.call("GET", "/v1/scheduled-messages/" + alices).as(ALICE).send();
        ApiFixture.Reply later = api.call("POST", "/v1/scheduled-messages").as(ALICE)
                .body(envelope(api.message(ALICE, Duration.ofHours(3)))).send();

        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.text()).isEqualTo("{\"channel\":\"general\",\"failed\":2,\"purged\":2,\"in_flight\":0,"
                + "\"newly_deleted\":true}");
        assertThat(again.text()).isEqualTo("{\"channel\":\"general\",\"failed\":0,\"purged\":0,\"in_flight\":0,"
                + "\"newly_deleted\":false}");
        assertThat(item.json().get("state").asText()).isEqualTo("failed");
        assertThat(item.json().get("reason").asText()).isEqualTo("channel_deleted");
        assertThat(item.json().has("event")).isFalse();
        assertThat(api.stored(bobs).failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(later.status()).isEqualTo(422);
        assertThat(later.error()).isEqualTo("channel_not_found");
    }

    @Test
    void channelDeleted_encodedChannelName_isDecodedBeforeUse() {
        NostrEvent event = ApiFixture.event(ALICE, api.clock.now().plus(Duration.ofHours(1)).getEpochSecond(), 9,
                List.of(List.of("h", "ops room")), "hi");
        String id = created(event);

        ApiFixture.Reply deleted = api.call("POST", "/v1/admin/channels/ops%20room/deleted").as(OPERATOR).send();

        assertThat(deleted.status()).as(deleted.text()).isEqualTo(200);
        assertThat(deleted.json().get("channel").asText()).isEqualTo("ops room");
        assertThat(api.stored(id).failureReason()).contains(FailureReason.CHANNEL_DELETED);
    }

    @Test
    void memberRemoved_failsOnlyThatMembersPendingItemsInThatChannel() {
        String alices = created(api.message(ALICE, Duration.ofHours(1)));
        String bobs = created(api.message(BOB, Duration.ofHours(1)));

        ApiFixture.Reply removed = api.call("POST", "/v1/admin/channels/general/members/" + ALICE.hex() + "/removed")
                .as(OPERATOR).send();

        assertThat(removed.status()).isEqualTo(200);
        assertThat(removed.text()).isEqualTo("{\"channel\":\"general\",\"pubkey\":\"" + ALICE.hex()
                + "\",\"failed\":1,\"in_flight\":0}");
        assertThat(api.stored(alices).failureReason()).contains(FailureReason.MEMBER_REMOVED);
        assertThat(api.stored(bobs).state().wireName()).isEqualTo("scheduled");
    }

    @Test
    void memberRemoved_badPubkey_answers400NamingIt() {
        ApiFixture.Reply reply = api.call("POST", "/v1/admin/channels/general/members/ABC/removed").as(OPERATOR).send();

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.error()).isEqualTo("invalid_request");
        assertThat(reply.json().get("message").asText()).contains("64 lowercase hex").contains("\"ABC\"");
    }

    @Test
    void purgeOwner_deletesTheOwnersItemsSoTheyAreNotFound() {
        String alices = created(api.message(ALICE, Duration.ofHours(1)));
        String bobs = created(api.message(BOB, Duration.ofHours(1)));

        ApiFixture.Reply purged = api.call("DELETE", "/v1/admin/owners/" + ALICE.hex()).as(OPERATOR).send();
        ApiFixture.Reply item = api.call("GET", "/v1/scheduled-messages/" + alices).as(ALICE).send();

        assertThat(purged.text()).isEqualTo("{\"owner\":\"" + ALICE.hex() + "\",\"deleted\":1}");
        assertThat(item.status()).isEqualTo(404);
        assertThat(api.stored(bobs).state().wireName()).isEqualTo("scheduled");
    }

    @Test
    void purgeOwner_byNpub_purgesTheSameOwnerAndAnswersItsHex() {
        created(api.message(ALICE, Duration.ofHours(1)));
        String bobs = created(api.message(BOB, Duration.ofHours(1)));

        ApiFixture.Reply purged = api.call("DELETE", "/v1/admin/owners/" + Nip19.npub(ALICE)).as(OPERATOR).send();
        String brokenChecksum = Nip19.npub(BOB).substring(0, 62) + (Nip19.npub(BOB).endsWith("q") ? "p" : "q");
        ApiFixture.Reply refused = api.call("DELETE", "/v1/admin/owners/" + brokenChecksum).as(OPERATOR).send();

        assertThat(purged.text()).isEqualTo("{\"owner\":\"" + ALICE.hex() + "\",\"deleted\":1}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("message").asText()).contains("npub").contains(brokenChecksum);
        assertThat(api.stored(bobs).state().wireName()).isEqualTo("scheduled");
    }

    @Test
    void purgeAll_needsConfirmationThenDeletesEverything() {
        created(api.message(ALICE, Duration.ofHours(1)));
        created(api.message(BOB, Duration.ofHours(1)));

        ApiFixture.Reply unconfirmed = api.call("DELETE", "/v1/admin/scheduled-messages").as(OPERATOR).send();
        int before = api.store.size();
        ApiFixture.Reply confirmed = api.call("DELETE", "/v1/admin/scheduled-messages?confirm=all").as(OPERATOR).send();

        assertThat(unconfirmed.status()).isEqualTo(400);
        assertThat(unconfirmed.json().get("message").asText()).contains("?confirm=all");
        assertThat(before).isEqualTo(2);
        assertThat(confirmed.text()).isEqualTo("{\"deleted\":2}");
        assertThat(api.store.size()).isZero();
    }

    @Test
    void operatorRoutes_withABody_answer400() {
        ApiFixture.Reply reply = api.call("POST", GENERAL_DELETED).as(OPERATOR).body("{\"why\":\"spam\"}").send();

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.json().get("message").asText()).isEqualTo("this route takes no request body");
        assertThat(api.store.channelDeleted(new Channel("general"))).isFalse();
    }

    @Test
    void operatorRoutes_whileTheFeatureIsOff_stillServeOperators() {
        try (ApiFixture off = new ApiFixture(settings -> settings.withScheduledMessages(false),
                () -> new ReadinessCheck.Readiness.Ready())) {
            ApiFixture.Reply owner = off.call("GET", "/v1/scheduled-messages").as(ALICE).send();
            ApiFixture.Reply operator = off.call("GET", RESERVATIONS).as(OPERATOR).send();

            assertThat(owner.status()).isEqualTo(404);
            assertThat(owner.error()).isEqualTo("feature_disabled");
            assertThat(operator.status()).isEqualTo(200);
        }
    }
}

package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * {@code BUZZ_SCHEDULED_MESSAGES} (README.md "Configuration"): the feature flag gates the owner routes and what
 * {@code /v1/info} advertises.
 */
class FeatureFlagTest {
    private static final String ID_PATH = "/v1/scheduled-messages/00000000-0000-4000-8000-000000000001";

    @Test
    void flagOff_everyOwnerRouteAnswers404FeatureDisabled() {
        try (ApiFixture api = new ApiFixture(settings -> settings.withScheduledMessages(false),
                () -> new ReadinessCheck.Readiness.Ready())) {
            String body = envelope(api.message(ALICE, Duration.ofHours(1)));
            List<ApiFixture.Call> calls = List.of(
                    api.call("POST", "/v1/scheduled-messages").as(ALICE).body(body),
                    api.call("POST", "/v1/scheduled-messages").body(body),
                    api.call("GET", "/v1/scheduled-messages").as(ALICE),
                    api.call("GET", ID_PATH).as(ALICE),
                    api.call("PUT", ID_PATH).as(ALICE).header("If-Match", "\"1\"").body(body),
                    api.call("DELETE", ID_PATH).as(ALICE),
                    api.call("POST", ID_PATH + "/send-now").as(ALICE),
                    api.call("GET", ID_PATH));

            for (ApiFixture.Call call : calls) {
                ApiFixture.Reply reply = call.send();
                assertThat(reply.status()).as(reply.text()).isEqualTo(404);
                assertThat(reply.error()).isEqualTo("feature_disabled");
                assertThat(reply.json().get("message").asText()).contains("BUZZ_SCHEDULED_MESSAGES");
            }
            assertThat(api.store.size()).isZero();
        }
    }

    @Test
    void flagOff_infoAdvertisesNothing() {
        try (ApiFixture api = new ApiFixture(settings -> settings.withScheduledMessages(false),
                () -> new ReadinessCheck.Readiness.Ready())) {
            ApiFixture.Reply info = api.call("GET", "/v1/info").send();
            ApiFixture.Reply root = api.call("GET", "/").header("Accept", "application/nostr+json").send();

            for (ApiFixture.Reply reply : List.of(info, root)) {
                assertThat(reply.status()).isEqualTo(200);
                assertThat(reply.json().get("supported_extensions")).isEmpty();
                assertThat(reply.json().has("limitation")).isFalse();
            }
        }
    }

    @Test
    void flagOn_infoAdvertisesTheExtensionAndLimits() {
        try (ApiFixture api = new ApiFixture()) {
            ApiFixture.Reply info = api.call("GET", "/v1/info").send();
            ApiFixture.Reply root = api.call("GET", "/").header("Accept", "application/nostr+json").send();

            for (ApiFixture.Reply reply : List.of(info, root)) {
                assertThat(reply.status()).isEqualTo(200);
                assertThat(reply.header("Access-Control-Allow-Origin")).isEqualTo("*");
                assertThat(reply.json().get("supported_extensions")).hasSize(1);
                assertThat(reply.json().get("supported_extensions").get(0).asText())
                        .isEqualTo("buzz-scheduled-messages-v1");
                assertThat(reply.json().get("limitation").get("max_schedule_horizon_seconds").asLong())
                        .isEqualTo(Duration.ofDays(120).toSeconds());
                assertThat(reply.json().get("limitation").get("max_content_bytes").asInt())
                        .isEqualTo(ApiFixture.MAX_CONTENT_BYTES);
                assertThat(reply.json().get("limitation").get("max_pending_per_owner").asInt())
                        .isEqualTo(ApiFixture.MAX_PENDING);
            }
            assertThat(root.header("Content-Type")).startsWith("application/nostr+json");
        }
    }

    @Test
    void relayWithASmallerContentLimit_infoAdvertisesTheRelaysLimit() {
        java.util.concurrent.atomic.AtomicReference<OptionalInt> relay =
                new java.util.concurrent.atomic.AtomicReference<>(OptionalInt.of(ApiFixture.MAX_CONTENT_BYTES / 2));
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                configured -> configured.relayLimits(() -> new RelayStatedLimits(relay.get(), OptionalInt.empty(),
                        OptionalInt.empty(), OptionalInt.empty())))) {
            int smaller = api.call("GET", "/v1/info").send().json().get("limitation").get("max_content_bytes")
                    .asInt();
            relay.set(OptionalInt.of(ApiFixture.MAX_CONTENT_BYTES * 2));
            int larger = api.call("GET", "/v1/info").send().json().get("limitation").get("max_content_bytes").asInt();
            relay.set(OptionalInt.empty());
            int unstated = api.call("GET", "/v1/info").send().json().get("limitation").get("max_content_bytes")
                    .asInt();

            assertThat(smaller).isEqualTo(ApiFixture.MAX_CONTENT_BYTES / 2);
            assertThat(larger).isEqualTo(ApiFixture.MAX_CONTENT_BYTES);
            assertThat(unstated).isEqualTo(ApiFixture.MAX_CONTENT_BYTES);
        }
    }

    @Test
    void relayStatingTagPowAndMessageLimits_infoAdvertisesWhatAdmissionApplies_andNothingWhenUnstated() {
        java.util.concurrent.atomic.AtomicReference<RelayStatedLimits> relay =
                new java.util.concurrent.atomic.AtomicReference<>(new RelayStatedLimits(OptionalInt.empty(),
                        OptionalInt.of(131_072), OptionalInt.of(20), OptionalInt.of(16)));
        try (ApiFixture api = new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                configured -> configured.relayLimits(relay::get))) {
            com.fasterxml.jackson.databind.JsonNode stated = api.call("GET", "/v1/info").send().json()
                    .get("limitation");
            relay.set(RelayStatedLimits.NONE);
            com.fasterxml.jackson.databind.JsonNode unstated = api.call("GET", "/v1/info").send().json()
                    .get("limitation");

            assertThat(stated.get("max_event_tags").asInt()).isEqualTo(20);
            assertThat(stated.get("max_message_length").asInt()).isEqualTo(131_072);
            assertThat(stated.get("min_pow_difficulty").asInt()).isEqualTo(16);
            assertThat(unstated.get("max_event_tags").asInt()).isEqualTo(OwnerApiLimits.DEFAULTS.maxEventTags());
            assertThat(unstated.has("max_message_length")).isFalse();
            assertThat(unstated.has("min_pow_difficulty")).isFalse();
        }
    }

    @Test
    void root_neitherNostrNorHtmlAccepted_answers406PointingAtTheConsoleAndTheApi() {
        try (ApiFixture api = new ApiFixture()) {
            ApiFixture.Reply reply = api.call("GET", "/").header("Accept", "application/json").send();

            assertThat(reply.status()).isEqualTo(406);
            assertThat(reply.error()).isEqualTo("not_acceptable");
            assertThat(reply.json().get("message").asText()).contains("/admin").contains("/openapi.yaml");
        }
    }

    @Test
    void root_browser_getsAPageLinkingTheConsoleTheApiDescriptionAndNip11_whileNostrJsonStillGetsNip11() {
        try (ApiFixture api = new ApiFixture()) {
            ApiFixture.Reply page = api.call("GET", "/")
                    .header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8").send();
            ApiFixture.Reply nip11 = api.call("GET", "/").header("Accept", "application/nostr+json").send();

            assertThat(page.status()).isEqualTo(200);
            assertThat(page.header("Content-Type")).startsWith("text/html");
            assertThat(page.header("Content-Security-Policy")).contains("default-src 'none'");
            assertThat(page.text()).contains("<a href=\"admin\">Operator console</a>")
                    .contains("<a href=\"openapi.yaml\">").contains("<a href=\"v1/info\">");
            assertThat(nip11.status()).isEqualTo(200);
            assertThat(nip11.header("Content-Type")).startsWith("application/nostr+json");
            assertThat(nip11.json().get("supported_extensions")).isNotNull();
        }
    }
}

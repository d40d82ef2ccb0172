package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static buzz.scheduled.adapters.http.ApiFixture.BOB;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.InMemoryOwnerSettingsStore;
import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.application.service.OwnerSettingsService;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@code GET/PUT /v1/owner/settings} through the real Javalin app: each owner reads and writes their own choice only,
 * bad bodies are {@code 400 invalid_request} with nothing stored, a write past the owner's rate is
 * {@code 429 rate_limited}; and the NIP-11 document names the Nostr-native features that are on.
 */
class OwnerSettingsRoutesTest {
    private final InMemoryOwnerSettingsStore store = new InMemoryOwnerSettingsStore();
    private final AtomicBoolean limited = new AtomicBoolean();
    private final OwnerWriteLimiter writes = owner -> limited.get() ? Optional.of(Duration.ofSeconds(3))
            : Optional.empty();

    private ApiFixture api() {
        return new ApiFixture(settings -> settings, () -> new ReadinessCheck.Readiness.Ready(), null,
                api -> api.ownerSettings(new OwnerSettingsService(store, writes, true)).nostrFeatures(true, true));
    }

    @Test
    void get_ownerWhoNeverChose_answersFailuresAndWhetherNoticesAreOn() {
        try (ApiFixture api = api()) {
            ApiFixture.Reply reply = api.call("GET", "/v1/owner/settings").as(ALICE).send();

            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.json().get("notices").asText()).isEqualTo("failures");
            assertThat(reply.json().get("notices_enabled").asBoolean()).isTrue();
        }
    }

    @Test
    void put_choice_isStoredForThatOwnerOnly() {
        try (ApiFixture api = api()) {
            ApiFixture.Reply put = api.call("PUT", "/v1/owner/settings").as(ALICE).body("{\"notices\":\"all\"}")
                    .send();
            ApiFixture.Reply alice = api.call("GET", "/v1/owner/settings").as(ALICE).send();
            ApiFixture.Reply bob = api.call("GET", "/v1/owner/settings").as(BOB).send();

            assertThat(put.status()).isEqualTo(200);
            assertThat(put.json().get("notices").asText()).isEqualTo("all");
            assertThat(alice.json().get("notices").asText()).isEqualTo("all");
            assertThat(bob.json().get("notices").asText()).isEqualTo("failures");
        }
    }

    @Test
    void put_badBodies_areInvalidRequestsAndStoreNothing() {
        try (ApiFixture api = api()) {
            List<String> bodies = List.of("", "[]", "{\"notices\":\"loud\"}", "{\"notices\":1}",
                    "{\"notices\":\"all\",\"extra\":true}", "{\"notices\":\"all\",\"notices\":\"none\"}", "{");
            for (String body : bodies) {
                ApiFixture.Reply reply = api.call("PUT", "/v1/owner/settings").as(ALICE).body(body).send();

                assertThat(reply.status()).as(body).isEqualTo(400);
                assertThat(reply.error()).as(body).isEqualTo("invalid_request");
            }
            assertThat(store.notices(ALICE)).isEmpty();
        }
    }

    @Test
    void put_pastTheOwnersWriteRate_isRateLimitedWithRetryAfter() {
        try (ApiFixture api = api()) {
            limited.set(true);
            ApiFixture.Reply reply = api.call("PUT", "/v1/owner/settings").as(ALICE).body("{\"notices\":\"none\"}")
                    .send();

            assertThat(reply.status()).isEqualTo(429);
            assertThat(reply.error()).isEqualTo("rate_limited");
            assertThat(reply.header("Retry-After")).isEqualTo("3");
            assertThat(store.notices(ALICE)).isEmpty();
        }
    }

    @Test
    void get_withoutAuthentication_isUnauthorized() {
        try (ApiFixture api = api()) {
            assertThat(api.call("GET", "/v1/owner/settings").send().status()).isEqualTo(401);
        }
    }

    @Test
    void info_withTheFrontDoorAndNotices_namesTheirNipsAndExtensions() {
        try (ApiFixture api = api()) {
            ApiFixture.Reply info = api.call("GET", "/v1/info").send();

            assertThat(info.json().get("supported_extensions").toString()).contains("buzz-scheduled-messages-v1",
                    "buzz-nip90-5905-v1", "buzz-nip17-notices-v1");
            assertThat(info.json().get("supported_nips").toString()).isEqualTo("[9,11,17,44,59,89,90,98]");
        }
    }
}

package buzz.scheduled.adapters.http;

import static buzz.scheduled.adapters.http.ApiFixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.PublicKey;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What browsers need: the NIP-11 document's CORS headers and preflight for any origin, its {@code software} URL,
 * {@code version} and the sidecar's {@code pubkey}; the owner routes' CORS for {@code BUZZ_CORS_ORIGINS} only; the
 * operator page served from the jar with a strict Content-Security-Policy.
 */
class BrowserAccessTest {
    private static final String ORIGIN = "https://chat.example.com";
    private static final PublicKey SIDECAR = new PublicKey("5c".repeat(32));

    private final ApiFixture api = new ApiFixture();

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void info_anyOrigin_carriesTheHeadersNip11RequiresAndTheServersIdentity() {
        api.api.identity(new ServerIdentity(URI.create("https://example.org/buzz"), "1.2.3", Optional.of(SIDECAR)));

        for (ApiFixture.Reply reply : List.of(api.call("GET", "/v1/info").header("Origin", ORIGIN).send(),
                api.call("GET", "/").header("Accept", "application/nostr+json").header("Origin", ORIGIN).send())) {
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.header("Access-Control-Allow-Origin")).isEqualTo("*");
            assertThat(reply.header("Access-Control-Allow-Headers")).contains("Accept");
            assertThat(reply.header("Access-Control-Allow-Methods")).contains("GET");
            assertThat(reply.json().get("software").asText()).isEqualTo("https://example.org/buzz");
            assertThat(reply.json().get("version").asText()).isEqualTo("1.2.3");
            assertThat(reply.json().get("pubkey").asText()).isEqualTo(SIDECAR.hex());
        }
    }

    @Test
    void info_byDefault_namesThisBuildsSoftwareUrlAndVersion() {
        ApiFixture.Reply info = api.call("GET", "/v1/info").send();

        assertThat(URI.create(info.json().get("software").asText()).getScheme()).isEqualTo("https");
        assertThat(info.json().get("version").asText()).isEqualTo(ServerIdentity.buildVersion()).isNotBlank();
    }

    @Test
    void infoPreflight_anyOrigin_answers204WithTheCorsHeaders() {
        for (String path : List.of("/", "/v1/info")) {
            ApiFixture.Reply reply = api.call("OPTIONS", path).header("Origin", ORIGIN)
                    .header("Access-Control-Request-Method", "GET")
                    .header("Access-Control-Request-Headers", "accept").send();

            assertThat(reply.status()).as(path).isEqualTo(204);
            assertThat(reply.header("Access-Control-Allow-Origin")).isEqualTo("*");
            assertThat(reply.header("Access-Control-Allow-Methods")).contains("GET");
            assertThat(reply.header("Access-Control-Allow-Headers")).containsIgnoringCase("accept");
            assertThat(reply.text()).isEmpty();
        }
    }

    @Test
    void ownerPreflight_allowedOrigin_answersMethodsAndHeadersTheClientNeeds() {
        api.api.cors(CorsOrigins.parse(ORIGIN + ", https://other.example"));

        ApiFixture.Reply reply = api.call("OPTIONS", "/v1/scheduled-messages/00000000-0000-4000-8000-000000000001")
                .header("Origin", ORIGIN).header("Access-Control-Request-Method", "PUT")
                .header("Access-Control-Request-Headers", "authorization, if-match, content-type").send();

        assertThat(reply.status()).isEqualTo(204);
        assertThat(reply.header("Access-Control-Allow-Origin")).isEqualTo(ORIGIN);
        assertThat(reply.header("Access-Control-Allow-Methods")).isEqualTo("GET, PUT, DELETE, OPTIONS");
        assertThat(reply.header("Access-Control-Allow-Headers")).contains("Authorization", "If-Match", "Content-Type",
                "Idempotency-Key");
        assertThat(reply.header("Vary")).isEqualTo("Origin");
    }

    @Test
    void ownerPreflight_originNotAllowedOrCorsOff_isRefusedWithoutCorsHeaders() {
        ApiFixture.Reply off = api.call("OPTIONS", "/v1/scheduled-messages").header("Origin", ORIGIN)
                .header("Access-Control-Request-Method", "POST").send();
        api.api.cors(CorsOrigins.parse("https://other.example"));
        ApiFixture.Reply other = api.call("OPTIONS", "/v1/scheduled-messages").header("Origin", ORIGIN)
                .header("Access-Control-Request-Method", "POST").send();

        for (ApiFixture.Reply reply : List.of(off, other)) {
            assertThat(reply.status()).isEqualTo(403);
            assertThat(reply.error()).isEqualTo("forbidden");
            assertThat(reply.json().get("message").asText()).contains("BUZZ_CORS_ORIGINS");
            assertThat(reply.header("Access-Control-Allow-Origin")).isNull();
        }
    }

    @Test
    void ownerRoutes_allowedOrigin_exposeTheirHeadersAndOthersGetNone() {
        api.api.cors(CorsOrigins.parse(ORIGIN));
        String body = ApiFixture.envelope(api.message(ALICE, Duration.ofHours(1)));

        ApiFixture.Reply allowed = api.call("POST", "/v1/scheduled-messages").as(ALICE).body(body)
                .header("Origin", ORIGIN).send();
        ApiFixture.Reply stranger = api.call("GET", "/v1/scheduled-messages").as(ALICE)
                .header("Origin", "https://evil.example").send();

        assertThat(allowed.status()).as(allowed.text()).isEqualTo(201);
        assertThat(allowed.header("Access-Control-Allow-Origin")).isEqualTo(ORIGIN);
        assertThat(allowed.header("Access-Control-Expose-Headers")).contains("ETag", "Location");
        assertThat(stranger.status()).isEqualTo(200);
        assertThat(stranger.header("Access-Control-Allow-Origin")).isNull();
        assertThat(stranger.header("Vary")).isEqualTo("Origin");
    }

    @Test
    void ownerRoutes_anyOrigin_answerStar() {
        api.api.cors(CorsOrigins.parse("*"));

        ApiFixture.Reply reply = api.call("GET", "/v1/scheduled-messages").as(ALICE).header("Origin", ORIGIN).send();

        assertThat(reply.header("Access-Control-Allow-Origin")).isEqualTo("*");
    }

    @Test
    void corsOrigins_badValues_areRefusedNamingTheValue() {
        for (String bad : List.of("chat.example.com", "https://chat.example.com/", "*, https://a.example",
                "ftp://a.example")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> CorsOrigins.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(CorsOrigins.parse("").enabled()).isFalse();
    }

    @Test
    void operatorPage_servedFromTheJar_withItsBaseUrlAndAStrictPolicy() {
        ApiFixture.Reply page = api.call("GET", "/admin").send();
        ApiFixture.Reply script = api.call("GET", "/admin/admin.js").send();
        ApiFixture.Reply style = api.call("GET", "/admin/admin.css").send();

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.text()).contains("content=\"" + ApiFixture.BASE + "\"")
                .doesNotContain("src=\"http").doesNotContain("href=\"http");
        assertThat(page.header("Content-Security-Policy")).contains("script-src 'self'").contains("default-src 'none'");
        assertThat(script.header("Content-Type")).startsWith("text/javascript");
        assertThat(script.text()).contains("window.nostr.signEvent").doesNotContain("localStorage");
        assertThat(style.header("Content-Type")).startsWith("text/css");
    }

    @Test
    void operatorPage_withATrailingSlash_redirectsToThePathItsLinksAreRelativeTo() {
        ApiFixture.Reply slashed = api.call("GET", "/admin/").send();

        assertThat(slashed.status()).isEqualTo(308);
        assertThat(slashed.header("Location")).isEqualTo("../admin");
        assertThat(URI.create(ApiFixture.BASE + "/admin/").resolve(slashed.header("Location")).getPath())
                .isEqualTo("/admin");
    }
}

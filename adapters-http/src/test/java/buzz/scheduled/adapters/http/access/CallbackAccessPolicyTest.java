package buzz.scheduled.adapters.http.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.RefusalCode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The {@code http} access policy against a real local HTTP server playing the operator's callback. */
class CallbackAccessPolicyTest {
    private static final PublicKey ALICE = new PublicKey("a1".repeat(32));
    private static final Channel GENERAL = new Channel("general");

    /** What the callback answers next: status and body (null = hang until released). */
    private record Scripted(int status, String body) {
    }

    private final AtomicReference<Scripted> next = new AtomicReference<>(new Scripted(200, "{\"allowed\":true}"));
    private final List<String> questions = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private HttpServer server;
    private URI url;

    @BeforeEach
    void startCallback() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/access", this::answer);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/access");
    }

    @AfterEach
    void stopCallback() {
        release.countDown();
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        questions.add(exchange.getRequestMethod() + " " + exchange.getRequestHeaders().getFirst("Content-Type") + " "
                + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(auth == null ? "" : auth);
        Scripted scripted = next.get();
        if (scripted.body() == null) {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] body = scripted.body() == null ? new byte[0] : scripted.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(scripted.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            exchange.getResponseBody().write(body);
        }
        exchange.close();
    }

    private AccessDecision ask(String status, String body) {
        next.set(new Scripted(Integer.parseInt(status), body));
        return new CallbackAccessPolicy(new CallbackSettings(url, Duration.ofMillis(800), Optional.empty()))
                .check(ALICE, GENERAL, 9);
    }

    @Test
    void check_callbackAllows_isAllowedAndTheQuestionNamesPubkeyChannelAndKind() {
        AccessDecision decision = ask("200", "{\"allowed\":true}");

        assertThat(decision).isEqualTo(new AccessDecision.Allowed());
        assertThat(questions).containsExactly("POST application/json {\"pubkey\":\"" + ALICE.hex()
                + "\",\"channel\":\"general\",\"kind\":9}");
    }

    @Test
    void check_callbackDeniesWithAKnownReason_isDeniedWithThatCode() {
        for (RefusalCode code : List.of(RefusalCode.CHANNEL_NOT_FOUND, RefusalCode.IS_ARCHIVED,
                RefusalCode.NOT_IN_CHANNEL, RefusalCode.RESTRICTED)) {
            AccessDecision decision = ask("200", "{\"allowed\":false,\"reason\":\"" + code.wireName()
                    + "\",\"message\":\"no: " + code.wireName() + "\"}");

            assertThat(decision).isEqualTo(new AccessDecision.Denied(code, "no: " + code.wireName()));
        }
    }

    @Test
    void check_callbackDeniesWithAnUnknownReason_isDeniedRestrictedKeepingTheText() {
        AccessDecision decision = ask("200", "{\"allowed\":false,\"reason\":\"muted until friday\"}");

        assertThat(decision).isEqualTo(new AccessDecision.Denied(RefusalCode.RESTRICTED,
                "the access policy denied posting here: muted until friday"));
    }

    @Test
    void check_callbackDeniesWithoutReason_isDeniedRestricted() {
        AccessDecision decision = ask("200", "{\"allowed\":false}");

        assertThat(decision).isInstanceOfSatisfying(AccessDecision.Denied.class,
                denied -> assertThat(denied.code()).isEqualTo(RefusalCode.RESTRICTED));
    }

    @Test
    void check_callbackFailsWith5xx_isUnavailable() {
        AccessDecision decision = ask("503", "{\"allowed\":true}");

        assertThat(decision).isEqualTo(new AccessDecision.Unavailable("the access callback answered HTTP 503"));
    }

    @Test
    void check_callbackAnswersAnotherStatus_isUnavailableNotAGuess() {
        AccessDecision decision = ask("404", "{\"allowed\":false}");

        assertThat(decision).isInstanceOfSatisfying(AccessDecision.Unavailable.class,
                unavailable -> assertThat(unavailable.message()).contains("HTTP 404"));
    }

    @Test
    void check_callbackAnswersSomethingThatIsNotADecision_isUnavailable() {
        assertThat(ask("200", "yes")).isInstanceOf(AccessDecision.Unavailable.class);
        assertThat(ask("200", "[true]")).isInstanceOf(AccessDecision.Unavailable.class);
        assertThat(ask("200", "{\"allowed\":\"true\"}")).isInstanceOfSatisfying(AccessDecision.Unavailable.class,
                unavailable -> assertThat(unavailable.message()).contains("no boolean \"allowed\""));
        assertThat(ask("200", "{\"allowed\":false,\"allowed\":true}")).isInstanceOf(AccessDecision.Unavailable.class);
    }

    @Test
    void check_callbackHangs_isUnavailableWithinTheTimeout() {
        long started = System.nanoTime();

        AccessDecision decision = ask("200", null);

        long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
        assertThat(decision).isInstanceOfSatisfying(AccessDecision.Unavailable.class,
                unavailable -> assertThat(unavailable.message()).contains("within 800 ms"));
        assertThat(elapsedMillis).isLessThan(5_000);
    }

    @Test
    void check_callbackNotListening_isUnavailable() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        CallbackAccessPolicy policy = new CallbackAccessPolicy(CallbackSettings.of(
                URI.create("http://127.0.0.1:" + closedPort + "/access")));

        AccessDecision decision = policy.check(ALICE, GENERAL, 9);

        assertThat(decision).isInstanceOfSatisfying(AccessDecision.Unavailable.class,
                unavailable -> assertThat(unavailable.message()).startsWith("the access callback could not be reached"));
    }

    @Test
    void check_withAnAuthorizationSetting_sendsIt() {
        new CallbackAccessPolicy(new CallbackSettings(url, Duration.ofSeconds(2), Optional.of("Bearer s3cret")))
                .check(ALICE, GENERAL, 40002);

        assertThat(authorizations).containsExactly("Bearer s3cret");
        assertThat(questions.get(0)).endsWith("\"kind\":40002}");
    }

    @Test
    void settings_badUrlOrTimeout_areRefusedNamingTheVariable() {
        for (String bad : List.of("ftp://host/x", "/relative", "http:opaque")) {
            assertThatThrownBy(() -> CallbackSettings.of(URI.create(bad)))
                    .hasMessageContaining("BUZZ_ACCESS_URL must be an absolute http(s) URL");
        }
        assertThatThrownBy(() -> new CallbackSettings(url, Duration.ZERO,
                Optional.empty())).hasMessageContaining("timeout must be positive");
        assertThatThrownBy(() -> new CallbackSettings(null, Duration.ofSeconds(1),
                Optional.empty())).hasMessageContaining("BUZZ_ACCESS_URL is missing");
    }
}

package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.application.port.in.AuthenticateRequestCommand;
import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.AuthenticationResult;
import buzz.scheduled.application.port.in.AuthenticationResult.Authenticated;
import buzz.scheduled.application.port.in.AuthenticationResult.Refused;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import buzz.scheduled.domain.nostr.UnsignedEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** NIP-98 checks with a fake signature port (signatures are tested against real BIP-340 in adapters-relay). */
class AuthenticateRequestServiceTest {

    private static final PublicKey OWNER =
            new PublicKey("c62114bce8f2c856c34c059f19aa69c05bd7c42c727791879652d6b206817036");
    private static final long NOW = 1_767_225_700L;
    private static final String URL = "https://sidecar.example/v1/scheduled-messages?limit=5";
    private static final byte[] BODY = "{\"event\":{}}".getBytes(StandardCharsets.UTF_8);
    private static final String BODY_SHA256 = sha256(BODY);

    private final SettableClock clock = new SettableClock(Instant.ofEpochSecond(NOW));
    private final ScriptedSignatures signatures = new ScriptedSignatures();
    private final AuthenticateRequestService service = new AuthenticateRequestService(signatures, clock);

    /** An event whose stand-in signature (the fake port accepts any) differs per event, as real ones do. */
    private static NostrEvent authEvent(long createdAt, int kind, List<List<String>> tags) {
        UnsignedEvent unsigned = new UnsignedEvent(OWNER, createdAt, kind, tags, "");
        return unsigned.withSignature(new Signature(unsigned.computeId().hex().repeat(2)));
    }

    /** The same event with another stand-in signature, as a second BIP-340 signing of the same id gives. */
    private static NostrEvent resigned(NostrEvent event, String sigDigit) {
        return new NostrEvent(event.id(), event.pubkey(), event.createdAt(), event.kind(), event.tags(),
                event.content(), new Signature(sigDigit.repeat(128)));
    }

    private static List<List<String>> tags(String url, String method, String payload) {
        List<List<String>> tags = new ArrayList<>();
        if (url != null) {
            tags.add(List.of("u", url));
        }
        if (method != null) {
            tags.add(List.of("method", method));
        }
        if (payload != null) {
            tags.add(List.of("payload", payload));
        }
        return tags;
    }

    private static String header(NostrEvent event) {
        return "Nostr " + Base64.getEncoder().encodeToString(NostrEventJson.write(event).getBytes(StandardCharsets.UTF_8));
    }

    private AuthenticationResult post(String authorization) {
        return service.authenticate(new AuthenticateRequestCommand("POST", URL, BODY, authorization));
    }

    private static String sha256(byte[] bytes) {
        try {
            return buzz.scheduled.domain.nostr.Hex.encode(
                    java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void authenticate_rightEventWithPayload_returnsThePubkey() {
        NostrEvent event = authEvent(NOW - 30, 27235, tags(URL, "POST", BODY_SHA256));

        assertThat(post(header(event))).isEqualTo(new Authenticated(OWNER));
        assertThat(signatures.checked).containsExactly(event);
    }

    @Test
    void authenticate_withoutPayloadTag_acceptsAnyBody() {
        NostrEvent event = authEvent(NOW, 27235, tags(URL, "POST", null));

        assertThat(post(header(event))).isEqualTo(new Authenticated(OWNER));
    }

    @Test
    void authenticate_base64WithoutPadding_accepts() {
        NostrEvent event = authEvent(NOW, 27235, tags(URL, "POST", null));
        String unpadded = "Nostr " + Base64.getEncoder().withoutPadding()
                .encodeToString(NostrEventJson.write(event).getBytes(StandardCharsets.UTF_8));

        assertThat(unpadded).doesNotEndWith("=");
        assertThat(post(unpadded)).isEqualTo(new Authenticated(OWNER));
    }

    @Test
    void authenticate_schemeInOtherCase_accepts() {
        NostrEvent event = authEvent(NOW, 27235, tags(URL, "POST", null));

        assertThat(post(header(event).replace("Nostr ", "nostr "))).isEqualTo(new Authenticated(OWNER));
    }

    @Test
    void authenticate_missingHeader_refuses() {
        assertThat(post(null)).isEqualTo(new Refused("Authorization header is missing"));
    }

    @Test
    void authenticate_otherScheme_refuses() {
        assertThat(post("Bearer abc")).isEqualTo(new Refused("Authorization scheme must be Nostr (NIP-98)"));
    }

    @Test
    void authenticate_schemeWithoutToken_refuses() {
        assertThat(post("Nostr")).isEqualTo(new Refused("Authorization scheme must be Nostr (NIP-98)"));
        assertThat(post("Nostr   ")).isEqualTo(new Refused("Authorization scheme must be Nostr (NIP-98)"));
    }

    @Test
    void authenticate_notBase64_refuses() {
        assertThat(post("Nostr ***")).isInstanceOf(Refused.class)
                .extracting(r -> ((Refused) r).message()).asString()
                .startsWith("Authorization token is not valid base64: ");
    }

    @Test
    void authenticate_hugeToken_refuses() {
        assertThat(post("Nostr " + "A".repeat(AuthenticateRequestService.MAX_TOKEN_CHARS + 1)))
                .isEqualTo(new Refused("Authorization token is longer than 65536 characters"));
    }

    @Test
    void authenticate_malformedEventJson_refusesWithTheReaderReason() {
        String token = Base64.getEncoder().encodeToString("{\"kind\":1.0}".getBytes(StandardCharsets.UTF_8));

        assertThat(post("Nostr " + token)).isEqualTo(new Refused("Authorization: Nostr must carry the base64 of a"
                + " signed kind-27235 event's JSON (NIP-98); this one decodes to no such event: number 1.0 at"
                + " offset 8 is not an integer: it has a fraction (only whole numbers without exponent are accepted)"));
    }

    @Test
    void authenticate_wrongKind_refuses() {
        NostrEvent event = authEvent(NOW, 1, tags(URL, "POST", null));

        assertThat(post(header(event))).isEqualTo(new Refused("Authorization event kind must be 27235 (NIP-98), got 1"));
    }

    @Test
    void authenticate_createdAtAtTheWindowEdges_accepts() {
        assertThat(post(header(authEvent(NOW - 60, 27235, tags(URL, "POST", null))))).isInstanceOf(Authenticated.class);
        assertThat(post(header(authEvent(NOW + 60, 27235, tags(URL, "POST", null))))).isInstanceOf(Authenticated.class);
    }

    @Test
    void authenticate_createdAtJustOutsideTheWindow_refusesSayingWhichWay() {
        assertThat(post(header(authEvent(NOW - 61, 27235, tags(URL, "POST", null))))).isEqualTo(new Refused(
                "Authorization event is too old: created_at is 61 s behind the server clock (limit 60 s)"));
        assertThat(post(header(authEvent(NOW + 61, 27235, tags(URL, "POST", null))))).isEqualTo(new Refused(
                "Authorization event is from the future: created_at is 61 s ahead of the server clock (limit 60 s)"));
    }

    @Test
    void authenticate_noUTag_refuses() {
        assertThat(post(header(authEvent(NOW, 27235, tags(null, "POST", null)))))
                .isEqualTo(new Refused("Authorization event has no u tag"));
    }

    @Test
    void authenticate_twoUTags_refuses() {
        List<List<String>> tags = tags(URL, "POST", null);
        tags.add(List.of("u", URL));

        assertThat(post(header(authEvent(NOW, 27235, tags))))
                .isEqualTo(new Refused("Authorization event has 2 u tags, expected one"));
    }

    @Test
    void authenticate_urlDiffersOnlyInTrailingSlashOrQuery_refuses() {
        String other = "https://sidecar.example/v1/scheduled-messages/?limit=5";

        assertThat(post(header(authEvent(NOW, 27235, tags(other, "POST", null))))).isEqualTo(new Refused(
                "Authorization u tag \"" + other + "\" does not match the URL of this request under PUBLIC_BASE_URL \"" + URL + "\""));
    }

    @Test
    void authenticate_noMethodTag_refuses() {
        assertThat(post(header(authEvent(NOW, 27235, tags(URL, null, null)))))
                .isEqualTo(new Refused("Authorization event has no method tag"));
    }

    @Test
    void authenticate_otherMethod_refuses() {
        assertThat(post(header(authEvent(NOW, 27235, tags(URL, "GET", null))))).isEqualTo(
                new Refused("Authorization method tag \"GET\" does not match the request method \"POST\""));
    }

    @Test
    void authenticate_lowercaseMethodTag_accepts() {
        assertThat(post(header(authEvent(NOW, 27235, tags(URL, "post", null))))).isEqualTo(new Authenticated(OWNER));
        assertThat(post(header(authEvent(NOW, 27235, tags(URL, "PoSt", null))))).isEqualTo(new Authenticated(OWNER));
    }

    @Test
    void authenticate_methodThatOnlyUnicodeCaseFoldingMakesEqual_refuses() {
        // "ſ" (U+017F) upper-cases to "S": String.equalsIgnoreCase would call it POST.
        assertThat(post(header(authEvent(NOW, 27235, tags(URL, "PO\u017fT", null))))).isEqualTo(
                new Refused("Authorization method tag \"PO\u017fT\" does not match the request method \"POST\""));
    }

    @Test
    void authenticate_uppercasePayloadHex_accepts() {
        NostrEvent event = authEvent(NOW, 27235, tags(URL, "POST", BODY_SHA256.toUpperCase(java.util.Locale.ROOT)));

        assertThat(post(header(event))).isEqualTo(new Authenticated(OWNER));
    }

    @Test
    void authenticate_baseUrlWithUppercaseHostAndDefaultPort_matchesTheNormalisedTag() {
        String configured = "https://Sched.Example.COM:443/v1/scheduled-messages?limit=5";
        String signed = "https://sched.example.com/v1/scheduled-messages?limit=5";

        AuthenticationResult result = service.authenticate(new AuthenticateRequestCommand("POST", configured, BODY,
                header(authEvent(NOW, 27235, tags(signed, "POST", null)))));

        assertThat(result).isEqualTo(new Authenticated(OWNER));
    }

    @Test
    void authenticate_tagWithAnotherPortOrHost_refusesNamingBothUrls() {
        String configured = "https://Sched.Example.COM:443/v1/scheduled-messages";
        String otherPort = "https://sched.example.com:8443/v1/scheduled-messages";
        String otherHost = "https://sched.example.org/v1/scheduled-messages";

        assertThat(service.authenticate(new AuthenticateRequestCommand("POST", configured, BODY,
                header(authEvent(NOW, 27235, tags(otherPort, "POST", null)))))).isEqualTo(new Refused(
                "Authorization u tag \"" + otherPort + "\" does not match the URL of this request under PUBLIC_BASE_URL \"" + configured + "\""));
        assertThat(service.authenticate(new AuthenticateRequestCommand("POST", configured, BODY,
                header(authEvent(NOW, 27235, tags(otherHost, "POST", null)))))).isInstanceOf(Refused.class);
    }

    @Test
    void authenticate_payloadOfAnotherBody_refuses() {
        String otherHash = sha256("{}".getBytes(StandardCharsets.UTF_8));

        assertThat(post(header(authEvent(NOW, 27235, tags(URL, "POST", otherHash))))).isEqualTo(
                new Refused("Authorization payload tag does not match the SHA-256 of the request body"));
    }

    @Test
    void authenticate_emptyBodyWithPayloadOfEmptyString_accepts() {
        NostrEvent event = authEvent(NOW, 27235, tags(URL, "DELETE", sha256(new byte[0])));

        AuthenticationResult result = service.authenticate(
                new AuthenticateRequestCommand("DELETE", URL, new byte[0], header(event)));

        assertThat(result).isEqualTo(new Authenticated(OWNER));
    }

    @Test
    void authenticate_signaturePortSaysInvalid_refusesWithItsReason() {
        signatures.verdict = new EventSignatures.Verdict.Invalid("id does not match content");

        assertThat(post(header(authEvent(NOW, 27235, tags(URL, "POST", null))))).isEqualTo(
                new Refused("Authorization event signature is invalid: id does not match content"));
    }

    @Test
    void authenticate_sameEventTwice_refusesTheReplay() {
        NostrEvent event = authEvent(NOW, 27235, tags(URL, "POST", null));

        AuthenticationResult first = post(header(event));
        clock.set(Instant.ofEpochSecond(NOW + 59));
        AuthenticationResult second = post(header(event));

        assertThat(first).isEqualTo(new Authenticated(OWNER));
        assertThat(second).isEqualTo(new Refused("Authorization event " + event.id().hex()
                + " with this signature was already used (replay)"));
    }

    @Test
    void authenticate_headerFromTheWindowsFutureEdge_isRefusedAgainUntilItsLastAcceptableSecond() {
        // created_at = now + 60 (the edge): acceptable until now + 120 s and a fraction; the guard must hold to the end.
        NostrEvent event = authEvent(NOW + 60, 27235, tags(URL, "POST", null));

        AuthenticationResult first = post(header(event));
        clock.set(Instant.ofEpochSecond(NOW + 120).plusMillis(60));
        AuthenticationResult atTheEnd = post(header(event));
        clock.set(Instant.ofEpochSecond(NOW + 121));
        AuthenticationResult pastTheWindow = post(header(event));

        assertThat(first).isEqualTo(new Authenticated(OWNER));
        assertThat(atTheEnd).isEqualTo(new Refused("Authorization event " + event.id().hex()
                + " with this signature was already used (replay)"));
        assertThat(pastTheWindow).isEqualTo(new Refused("Authorization event is too old: created_at is 61 s behind"
                + " the server clock (limit 60 s)"));
    }

    @Test
    void authenticate_headerFromTheWindowsPastEdge_isAcceptedOnceInItsLastSecond() {
        NostrEvent event = authEvent(NOW - 60, 27235, tags(URL, "POST", null));

        AuthenticationResult first = post(header(event));
        clock.set(Instant.ofEpochSecond(NOW).plusMillis(999));
        AuthenticationResult again = post(header(event));

        assertThat(first).isEqualTo(new Authenticated(OWNER));
        assertThat(again).isInstanceOf(Refused.class);
        assertThat(((Refused) again).message()).endsWith("(replay)");
    }

    @Test
    void checkBody_keepsTheSignatureUntilTwoWindowsAndASecondAfterCreatedAt() {
        List<Instant> kept = new ArrayList<>();
        AuthenticateRequestService recording = new AuthenticateRequestService(signatures, clock,
                Duration.ofSeconds(60), (signature, keepUntil) -> kept.add(keepUntil));
        NostrEvent event = authEvent(NOW + 60, 27235, tags(URL, "POST", null));

        recording.authenticate(new AuthenticateRequestCommand("POST", URL, BODY, header(event)));

        assertThat(kept).containsExactly(Instant.ofEpochSecond(NOW + 60 + 121));
    }

    @Test
    void checkHeader_refusedHeader_neverReachesTheReplayStoreOrTheBody() {
        List<Instant> kept = new ArrayList<>();
        AuthenticateRequestService recording = new AuthenticateRequestService(signatures, clock,
                Duration.ofSeconds(60), (signature, keepUntil) -> kept.add(keepUntil));
        NostrEvent stale = authEvent(NOW - 61, 27235, tags(URL, "POST", BODY_SHA256));

        AuthenticateRequestUseCase.HeaderCheck check = recording.checkHeader("POST", URL, header(stale));

        assertThat(check).isInstanceOf(AuthenticateRequestUseCase.HeaderCheck.Refused.class);
        assertThat(kept).isEmpty();
    }

    @Test
    void authenticate_sameEventIdWithAFreshSignature_acceptsBothAndRefusesEachRepeat() {
        NostrEvent signedOnce = authEvent(NOW, 27235, tags(URL, "POST", null));
        NostrEvent signedAgain = resigned(signedOnce, "6");

        AuthenticationResult first = post(header(signedOnce));
        AuthenticationResult second = post(header(signedAgain));
        AuthenticationResult repeat = post(header(signedAgain));

        assertThat(signedAgain.id()).isEqualTo(signedOnce.id());
        assertThat(signedAgain.sig()).isNotEqualTo(signedOnce.sig());
        assertThat(first).isEqualTo(new Authenticated(OWNER));
        assertThat(second).isEqualTo(new Authenticated(OWNER));
        assertThat(repeat).isInstanceOf(Refused.class);
    }

    @Test
    void authenticate_refusedEvent_isNotRememberedAsUsed() {
        NostrEvent event = authEvent(NOW, 27235, tags(URL, "POST", null));
        signatures.verdict = new EventSignatures.Verdict.Invalid("signature does not verify");
        post(header(event));
        signatures.verdict = new EventSignatures.Verdict.Valid();

        assertThat(post(header(event))).isEqualTo(new Authenticated(OWNER));
    }

    @Test
    void constructor_fractionalWindow_refuses() {
        assertThatThrownBy(() -> new AuthenticateRequestService(signatures, clock, Duration.ofMillis(1500), 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole seconds");
    }

    @Test
    void command_toString_doesNotLeakTheHeader() {
        AuthenticateRequestCommand command = new AuthenticateRequestCommand("GET", URL, new byte[0], "Nostr secret");

        assertThat(command.toString()).doesNotContain("secret").contains("authorization present");
    }

    /** A settable clock for this test. */
    private static final class SettableClock implements WallClock {
        private Instant now;

        SettableClock(Instant now) {
            this.now = now;
        }

        void set(Instant now) {
            this.now = now;
        }

        @Override
        public Instant now() {
            return now;
        }
    }

    /** Answers a scripted verdict and records what it was asked. */
    private static final class ScriptedSignatures implements EventSignatures {
        private Verdict verdict = new Verdict.Valid();
        private final List<NostrEvent> checked = new ArrayList<>();

        @Override
        public Verdict verify(NostrEvent event) {
            checked.add(event);
            return verdict;
        }
    }
}

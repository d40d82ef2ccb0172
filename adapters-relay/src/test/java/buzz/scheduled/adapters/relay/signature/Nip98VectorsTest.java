package buzz.scheduled.adapters.relay.signature;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.in.AuthenticateRequestCommand;
import buzz.scheduled.application.port.in.AuthenticationResult.Authenticated;
import buzz.scheduled.application.port.in.AuthenticationResult.Refused;
import buzz.scheduled.application.port.in.AuthenticationResult;
import buzz.scheduled.application.service.AuthenticateRequestService;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.UnsignedEvent;
import buzz.scheduled.domain.nostr.VectorLine;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code nip98-cases.jsonl} end to end: header → base64 → strict reader → NIP-98 checks → BIP-340 port, with the
 * clock set to each case's {@code now} (never the system clock).
 */
class Nip98VectorsTest {

    private static final List<VectorLine> CASES = VectorLine.readAll("/vectors/nip98-cases.jsonl");

    private static final Map<String, String> REFUSALS = Map.of(
            "invalid_wrong_url", "Authorization u tag \"http://127.0.0.1:8080/api/v1/events?since=1767225600&limit=10\""
                    + " does not match the URL of this request under PUBLIC_BASE_URL \"http://127.0.0.1:8080/api/v1/events?since=1767225600&limit=20\"",
            "invalid_wrong_method", "Authorization method tag \"GET\" does not match the request method \"DELETE\"",
            "invalid_payload_mismatch", "Authorization payload tag does not match the SHA-256 of the request body",
            "invalid_wrong_kind", "Authorization event kind must be 27235 (NIP-98), got 1",
            "invalid_missing_method_tag", "Authorization event has no method tag");

    static Stream<VectorLine> cases() {
        return CASES.stream();
    }

    static Stream<VectorLine> validCases() {
        return CASES.stream().filter(line -> line.bool("valid"));
    }

    @SuppressWarnings("unchecked")
    private static PublicKey pubkeyOf(VectorLine line) {
        return new PublicKey((String) ((Map<String, Object>) line.value("event")).get("pubkey"));
    }

    private static AuthenticateRequestService serviceAt(long now) {
        return new AuthenticateRequestService(new Bip340EventSignatures(), () -> Instant.ofEpochSecond(now));
    }

    @SuppressWarnings("unchecked")
    private static AuthenticateRequestCommand command(VectorLine line) {
        Map<String, Object> request = (Map<String, Object>) line.value("request");
        Object body = request.get("body");
        return new AuthenticateRequestCommand((String) request.get("method"), (String) request.get("url"),
                body == null ? new byte[0] : ((String) body).getBytes(StandardCharsets.UTF_8),
                line.string("authorization"));
    }

    @Test
    void caseFile_read_holdsThreeValidAndFiveInvalidCases() {
        assertThat(CASES).hasSize(8);
        assertThat(CASES.stream().filter(line -> line.bool("valid"))).hasSize(3);
        assertThat(CASES.stream().filter(line -> !line.bool("valid")).map(VectorLine::name))
                .containsExactlyInAnyOrderElementsOf(REFUSALS.keySet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void authenticate_everyCaseAtItsNow_givesTheExpectedVerdict(VectorLine line) {
        AuthenticationResult result = serviceAt((Long) line.value("now")).authenticate(command(line));

        if (line.bool("valid")) {
            assertThat(result).as(line.string("why")).isEqualTo(new Authenticated(pubkeyOf(line)));
        } else {
            assertThat(result).as(line.string("why")).isEqualTo(new Refused(REFUSALS.get(line.name())));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void authenticate_validCaseJustOutsideTheWindow_isRefusedSayingWhichWay(VectorLine line) {
        long createdAt = (Long) line.value("created_at");

        AuthenticationResult late = serviceAt(createdAt + 61).authenticate(command(line));
        AuthenticationResult early = serviceAt(createdAt - 61).authenticate(command(line));

        assertThat(late).isEqualTo(new Refused(
                "Authorization event is too old: created_at is 61 s behind the server clock (limit 60 s)"));
        assertThat(early).isEqualTo(new Refused(
                "Authorization event is from the future: created_at is 61 s ahead of the server clock (limit 60 s)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void authenticate_validCaseWithTamperedBody_isRefused(VectorLine line) {
        AuthenticateRequestCommand original = command(line);
        AuthenticateRequestCommand tampered = new AuthenticateRequestCommand(original.method(), original.url(),
                "{\"tampered\":true}".getBytes(StandardCharsets.UTF_8), original.authorization());

        AuthenticationResult result = serviceAt((Long) line.value("now")).authenticate(tampered);

        boolean hasPayload = line.value("request") instanceof Map<?, ?> request && request.get("body_sha256") != null;
        assertThat(result).isEqualTo(hasPayload
                ? new Refused("Authorization payload tag does not match the SHA-256 of the request body")
                : new Authenticated(pubkeyOf(line)));
    }

    /** The case's event as a header, with {@code tags} in place of its own and signed afresh with its key. */
    @SuppressWarnings("unchecked")
    private static String resigned(VectorLine line, java.util.function.UnaryOperator<List<List<String>>> tags) {
        Map<String, Object> event = (Map<String, Object>) line.value("event");
        UnsignedEvent unsigned = new UnsignedEvent(pubkeyOf(line), (Long) event.get("created_at"),
                ((Long) event.get("kind")).intValue(), tags.apply((List<List<String>>) event.get("tags")),
                (String) event.get("content"));
        NostrEvent signed = new Bip340Signer(new SecretKey(line.string("secret_key")), new SecureRandom()).sign(unsigned);
        return "Nostr " + Base64.getEncoder().encodeToString(NostrEventJson.write(signed).getBytes(StandardCharsets.UTF_8));
    }

    private static AuthenticateRequestCommand withHeader(AuthenticateRequestCommand command, String authorization) {
        return new AuthenticateRequestCommand(command.method(), command.url(), command.body(), authorization);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void authenticate_validCaseSignedAgainInTheSameSecond_isAcceptedTwiceAndEachHeaderOnce(VectorLine line) {
        AuthenticateRequestService service = serviceAt((Long) line.value("now"));
        String again = resigned(line, tags -> tags);

        AuthenticationResult original = service.authenticate(command(line));
        AuthenticationResult fresh = service.authenticate(withHeader(command(line), again));
        AuthenticationResult repeated = service.authenticate(withHeader(command(line), again));

        assertThat(again).as("a fresh BIP-340 signature of the same id").isNotEqualTo(line.string("authorization"));
        assertThat(original).isEqualTo(new Authenticated(pubkeyOf(line)));
        assertThat(fresh).isEqualTo(new Authenticated(pubkeyOf(line)));
        assertThat(repeated).isInstanceOf(Refused.class);
        assertThat(((Refused) repeated).message()).endsWith("with this signature was already used (replay)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void authenticate_validCaseWithLowercaseMethodAndUppercaseHex_isAccepted(VectorLine line) {
        String header = resigned(line, tags -> tags.stream()
                .map(tag -> switch (tag.get(0)) {
                    case "method" -> List.of("method", tag.get(1).toLowerCase(Locale.ROOT));
                    case "payload" -> List.of("payload", tag.get(1).toUpperCase(Locale.ROOT));
                    default -> tag;
                })
                .toList());

        AuthenticationResult result = serviceAt((Long) line.value("now")).authenticate(withHeader(command(line), header));

        assertThat(result).isEqualTo(new Authenticated(pubkeyOf(line)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void authenticate_validCaseAgainstAnUppercaseBaseWithTheDefaultPort_isAccepted(VectorLine line) {
        AuthenticateRequestCommand original = command(line);
        java.net.URI url = java.net.URI.create(original.url());
        String configured = url.getScheme().toUpperCase(Locale.ROOT) + "://" + url.getHost().toUpperCase(Locale.ROOT)
                + ":" + (url.getPort() < 0 ? ("https".equals(url.getScheme()) ? 443 : 80) : url.getPort())
                + url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());

        AuthenticationResult result = serviceAt((Long) line.value("now")).authenticate(new AuthenticateRequestCommand(
                original.method(), configured, original.body(), original.authorization()));

        assertThat(result).isEqualTo(new Authenticated(pubkeyOf(line)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void authenticate_validCaseReplayed_isRefusedTheSecondTime(VectorLine line) {
        AuthenticateRequestService service = serviceAt((Long) line.value("now"));
        service.authenticate(command(line));

        AuthenticationResult second = service.authenticate(command(line));

        assertThat(second).isInstanceOf(Refused.class);
        if (line.bool("valid")) {
            assertThat(((Refused) second).message()).endsWith("was already used (replay)");
        }
    }
}

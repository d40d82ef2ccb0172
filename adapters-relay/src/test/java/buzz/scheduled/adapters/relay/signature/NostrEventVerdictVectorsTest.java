package buzz.scheduled.adapters.relay.signature;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.EventSignatures.Verdict;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.VectorLine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The full strict verdict over {@code nostr-events.jsonl}: a line is valid exactly when the strict reader accepts
 * its wire text and the BIP-340 port says Valid. Crypto lines fail in the port with the reason listed here; lines
 * with {@code secret_key} and {@code aux_rand} are re-signed byte for byte.
 */
class NostrEventVerdictVectorsTest {

    private static final List<VectorLine> LINES = VectorLine.readAll("/vectors/nostr-events.jsonl");
    private static final EventSignatures SIGNATURES = new Bip340EventSignatures();

    private static final Map<String, String> CRYPTO_REASONS = Map.ofEntries(
            Map.entry("invalid_realworld_nip98_spec_example", Bip340EventSignatures.ID_MISMATCH),
            Map.entry("invalid_realworld_strfry_issue49_kind0", Bip340EventSignatures.ID_MISMATCH),
            Map.entry("invalid_sig_last_byte_flipped", Bip340EventSignatures.SIGNATURE_MISMATCH),
            Map.entry("invalid_sig_first_byte_flipped", Bip340EventSignatures.SIGNATURE_MISMATCH),
            Map.entry("invalid_id_wrong", Bip340EventSignatures.ID_MISMATCH),
            Map.entry("invalid_content_tampered", Bip340EventSignatures.ID_MISMATCH),
            Map.entry("invalid_created_at_tampered", Bip340EventSignatures.ID_MISMATCH),
            Map.entry("invalid_kind_tampered", Bip340EventSignatures.ID_MISMATCH),
            Map.entry("invalid_tags_reordered", Bip340EventSignatures.ID_MISMATCH),
            Map.entry("invalid_duplicate_tag_removed", Bip340EventSignatures.ID_MISMATCH),
            Map.entry("invalid_pubkey_x_ge_field_size", Bip340EventSignatures.PUBKEY_NOT_ON_CURVE),
            Map.entry("invalid_pubkey_swapped_id_recomputed", Bip340EventSignatures.SIGNATURE_MISMATCH),
            Map.entry("invalid_sig_s_equals_n", Bip340EventSignatures.SIGNATURE_MISMATCH),
            Map.entry("invalid_sig_s_all_ff", Bip340EventSignatures.SIGNATURE_MISMATCH),
            Map.entry("invalid_sig_r_equals_p", Bip340EventSignatures.SIGNATURE_MISMATCH),
            Map.entry("invalid_sig_r_not_on_curve", Bip340EventSignatures.SIGNATURE_MISMATCH));

    static Stream<VectorLine> lines() {
        return LINES.stream();
    }

    static Stream<VectorLine> cryptoLines() {
        return LINES.stream().filter(line -> line.string("category").equals("crypto"));
    }

    static Stream<VectorLine> signableLines() {
        return LINES.stream().filter(line -> line.raw("secret_key").isPresent() && line.raw("aux_rand").isPresent());
    }

    /** Strict read, then the signature port: the verdict the sidecar gives an incoming event. */
    private static boolean strictlyValid(String wireText) {
        return NostrEventJson.read(wireText) instanceof NostrEventJson.Decoded.Event decoded
                && SIGNATURES.verify(decoded.event()) instanceof Verdict.Valid;
    }

    private static NostrEvent event(VectorLine line) {
        return ((NostrEventJson.Decoded.Event) NostrEventJson.read(line.eventWireText())).event();
    }

    @Test
    void vectorFile_read_holdsSixtySixLinesOfWhichFourteenAreSignable() {
        assertThat(LINES).hasSize(66);
        assertThat(LINES.stream().filter(line -> line.bool("valid"))).hasSize(18);
        assertThat(signableLines()).hasSize(14);
        assertThat(cryptoLines().map(VectorLine::name)).containsExactlyInAnyOrderElementsOf(CRYPTO_REASONS.keySet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lines")
    void verdict_everyLine_equalsValid(VectorLine line) {
        assertThat(strictlyValid(line.eventWireText())).as(line.string("why")).isEqualTo(line.bool("valid"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cryptoLines")
    void verify_cryptoLine_isInvalidWithPreciseReason(VectorLine line) {
        assertThat(SIGNATURES.verify(event(line))).isEqualTo(new Verdict.Invalid(CRYPTO_REASONS.get(line.name())));
    }

    @Test
    void verifyAll_everyDecodableLineTwiceOver_answersForEachWhatVerifyAnswers() {
        List<NostrEvent> events = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (VectorLine line : LINES) {
                if (NostrEventJson.read(line.eventWireText()) instanceof NostrEventJson.Decoded.Event decoded) {
                    events.add(decoded.event());
                }
            }
        }
        List<Verdict> one = events.stream().map(SIGNATURES::verify).toList();

        assertThat(SIGNATURES.verifyAll(events)).isEqualTo(one);
        assertThat(one).contains(new Verdict.Valid(), new Verdict.Invalid(Bip340EventSignatures.SIGNATURE_MISMATCH),
                new Verdict.Invalid(Bip340EventSignatures.ID_MISMATCH),
                new Verdict.Invalid(Bip340EventSignatures.PUBKEY_NOT_ON_CURVE));
    }

    @Test
    void verifyAll_aHundredEventsByOneKey_allValid_thenOneForgedSignature_onlyThatOneInvalid() {
        Bip340Signer signer = Bip340Signer.withFixedAux(new SecretKey("11".repeat(32)), new byte[32]);
        List<NostrEvent> events = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            events.add(signer.sign(1_700_000_000L + i, 9, List.of(List.of("h", "ops")), "message " + i));
        }
        assertThat(SIGNATURES.verifyAll(events)).hasSize(100).containsOnly(new Verdict.Valid());

        NostrEvent victim = events.get(37);
        NostrEvent other = events.get(38);
        List<NostrEvent> forged = new ArrayList<>(events);
        forged.set(37, new NostrEvent(victim.id(), victim.pubkey(), victim.createdAt(), victim.kind(), victim.tags(),
                victim.content(), other.sig()));
        List<Verdict> verdicts = SIGNATURES.verifyAll(forged);

        assertThat(verdicts.get(37)).isEqualTo(new Verdict.Invalid(Bip340EventSignatures.SIGNATURE_MISMATCH));
        assertThat(verdicts).hasSize(100).filteredOn(Verdict.Valid.class::isInstance).hasSize(99);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("signableLines")
    void sign_lineWithSecretKeyAndAux_reproducesSigByteForByte(VectorLine line) {
        NostrEvent expected = event(line);
        SecretKey key = new SecretKey(line.string("secret_key"));
        Bip340Signer signer = Bip340Signer.withFixedAux(key, Hex.decode(line.string("aux_rand")));

        NostrEvent signed = signer.sign(expected.unsigned());

        assertThat(signer.publicKey()).isEqualTo(expected.pubkey());
        assertThat(signed.sig()).isEqualTo(expected.sig());
        assertThat(signed).isEqualTo(expected);
    }
}

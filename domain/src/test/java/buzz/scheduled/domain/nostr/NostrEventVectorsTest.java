package buzz.scheduled.domain.nostr;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The strict reader and the canonical serializer against {@code nostr-events.jsonl} (vectors/README.md): every
 * line is read from its wire text; schema and policy lines are refused with the reason listed here; valid lines
 * serialize to {@code serialized} byte for byte and their recomputed id equals their {@code id}. Crypto lines are
 * well-formed and go on to the signature port (adapters-relay tests the full verdict).
 */
class NostrEventVectorsTest {

    private static final List<VectorLine> LINES = VectorLine.readAll("/vectors/nostr-events.jsonl");

    /** What the strict reader must answer for each schema and policy line. */
    private static final Map<String, String> EXPECTED_REASONS = Map.ofEntries(
            Map.entry("invalid_id_uppercase_hex", "uppercase hex in id (NIP-01 requires lowercase)"),
            Map.entry("invalid_pubkey_uppercase_hex", "uppercase hex in pubkey (NIP-01 requires lowercase)"),
            Map.entry("invalid_sig_uppercase_hex", "uppercase hex in sig (NIP-01 requires lowercase)"),
            Map.entry("invalid_id_63_hex_chars", "id must be 64 hex characters, got 63"),
            Map.entry("invalid_sig_non_hex", "non-hex character 'g' at index 0 in sig"),
            Map.entry("invalid_id_non_hex", "non-hex character 'z' at index 62 in id"),
            Map.entry("invalid_pubkey_33byte_compressed", "pubkey must be 64 hex characters, got 66"),
            Map.entry("invalid_pubkey_leading_space", "pubkey must be 64 hex characters, got 65"),
            Map.entry("invalid_created_at_float", "number 1767225600.5 at offset 162 is not an integer: it has a"
                    + " fraction (only whole numbers without exponent are accepted)"),
            Map.entry("invalid_created_at_string", "created_at must be an integer, got a string"),
            Map.entry("invalid_created_at_negative", "created_at must not be negative, got -1"),
            Map.entry("invalid_kind_65536", "kind must be between 0 and 65535, got 65536"),
            Map.entry("invalid_kind_float", "number 1.5 at offset 180 is not an integer: it has a fraction"
                    + " (only whole numbers without exponent are accepted)"),
            Map.entry("invalid_tag_null_element", "tags[0][1] must be a string, got null"),
            Map.entry("invalid_tag_number_element", "tags[0][1] must be a string, got an integer"),
            Map.entry("invalid_tags_flat_array", "tags[0] must be an array of strings, got a string"),
            Map.entry("invalid_tag_empty_array", "tags[0] is empty: a tag has one or more strings"),
            Map.entry("invalid_tags_object", "tags must be an array of arrays, got an object"),
            Map.entry("invalid_content_object", "content must be a string, got an object"),
            Map.entry("invalid_content_null", "content must be a string, got null"),
            Map.entry("invalid_missing_id", "field \"id\" is missing"),
            Map.entry("invalid_missing_pubkey", "field \"pubkey\" is missing"),
            Map.entry("invalid_missing_created_at", "field \"created_at\" is missing"),
            Map.entry("invalid_missing_kind", "field \"kind\" is missing"),
            Map.entry("invalid_missing_tags", "field \"tags\" is missing"),
            Map.entry("invalid_missing_content", "field \"content\" is missing"),
            Map.entry("invalid_extra_unknown_fields", "unknown field \"relays\": an event has exactly the fields"
                    + " id, pubkey, created_at, kind, tags, content, sig (others are not covered by the signature)"),
            Map.entry("invalid_id_null", "id must be a string, got null"),
            Map.entry("invalid_raw_duplicate_content_key", "duplicate key \"content\" at offset 216"),
            Map.entry("invalid_raw_created_at_1767225600.0", "number 1767225600.0 at offset 162 is not an"
                    + " integer: it has a fraction (only whole numbers without exponent are accepted)"),
            Map.entry("invalid_raw_created_at_exponent", "number 1.7672256e9 at offset 162 is not an integer:"
                    + " it has a fraction and an exponent (only whole numbers without exponent are accepted)"),
            Map.entry("invalid_raw_lone_surrogate", "lone surrogate \\ud800 in the string starting at offset 202"
                    + " (not valid Unicode, it has no UTF-8 form)"));

    static Stream<VectorLine> lines() {
        return LINES.stream();
    }

    static Stream<VectorLine> validLines() {
        return LINES.stream().filter(line -> line.bool("valid"));
    }

    static Stream<VectorLine> refusedLines() {
        return LINES.stream().filter(line -> List.of("schema", "policy").contains(line.string("category")));
    }

    static Stream<VectorLine> cryptoLines() {
        return LINES.stream().filter(line -> line.string("category").equals("crypto"));
    }

    @Test
    void vectorFile_readWithLfSplitting_holdsEveryCategory() {
        assertThat(LINES).hasSize(66);
        assertThat(validLines()).hasSize(18);
        assertThat(refusedLines()).hasSize(EXPECTED_REASONS.size());
        assertThat(cryptoLines()).hasSize(16);
        assertThat(refusedLines().map(VectorLine::name)).containsExactlyInAnyOrderElementsOf(EXPECTED_REASONS.keySet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lines")
    void read_anyVectorLine_acceptsExactlyTheWellFormedOnes(VectorLine line) {
        boolean wellFormed = !List.of("schema", "policy").contains(line.string("category"));

        NostrEventJson.Decoded decoded = NostrEventJson.read(line.eventWireText());

        assertThat(decoded instanceof NostrEventJson.Decoded.Event)
                .as("%s read as well-formed: %s", line, decoded)
                .isEqualTo(wellFormed);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedLines")
    void read_schemaOrPolicyLine_refusesWithPreciseReason(VectorLine line) {
        NostrEventJson.Decoded decoded = NostrEventJson.read(line.eventWireText());

        assertThat(decoded).isEqualTo(new NostrEventJson.Decoded.Malformed(EXPECTED_REASONS.get(line.name())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validLines")
    void canonicalSerialization_validLine_equalsSerializedByteForByte(VectorLine line) {
        NostrEvent event = ((NostrEventJson.Decoded.Event) NostrEventJson.read(line.eventWireText())).event();

        assertThat(event.canonicalSerialization()).isEqualTo(line.string("serialized"));
        assertThat(event.unsigned().computeId()).isEqualTo(event.id());
        assertThat(event.idMatchesContent()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validLines")
    void write_validLine_readsBackEqual(VectorLine line) {
        NostrEvent event = ((NostrEventJson.Decoded.Event) NostrEventJson.read(line.eventWireText())).event();

        assertThat(NostrEventJson.read(NostrEventJson.write(event))).isEqualTo(new NostrEventJson.Decoded.Event(event));
    }

    @Test
    void computeId_tamperedContentLines_differsFromStatedId() {
        List<String> idMismatches = cryptoLines()
                .filter(line -> !((NostrEventJson.Decoded.Event) NostrEventJson.read(line.eventWireText()))
                        .event().idMatchesContent())
                .map(VectorLine::name)
                .toList();

        assertThat(idMismatches).containsExactlyInAnyOrder(
                "invalid_realworld_nip98_spec_example", "invalid_realworld_strfry_issue49_kind0", "invalid_id_wrong",
                "invalid_content_tampered", "invalid_created_at_tampered", "invalid_kind_tampered",
                "invalid_tags_reordered", "invalid_duplicate_tag_removed");
    }
}

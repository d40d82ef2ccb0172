package buzz.scheduled.domain.nostr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StrictJsonTest {

    private static Object value(String text) {
        StrictJson.Parsed parsed = StrictJson.parse(text);
        assertThat(parsed).as(text).isInstanceOf(StrictJson.Parsed.Value.class);
        return ((StrictJson.Parsed.Value) parsed).value();
    }

    private static String reason(String text) {
        StrictJson.Parsed parsed = StrictJson.parse(text);
        assertThat(parsed).as(text).isInstanceOf(StrictJson.Parsed.Malformed.class);
        return ((StrictJson.Parsed.Malformed) parsed).reason();
    }

    @Test
    void parse_generalDocument_returnsMapsListsStringsLongsBooleansAndNull() {
        Object parsed = value(" {\"event\":{\"a\":[1,-2,0,true,false,null,\"x\"]},\"n\":null} ");

        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("a", Arrays.asList(1L, -2L, 0L, true, false, null, "x"));
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("event", inner);
        expected.put("n", null);
        assertThat(parsed).isEqualTo(expected);
        assertThat(((Map<?, ?>) parsed).containsKey("n")).isTrue();
    }

    @Test
    void parse_objectKeys_keepsWireOrder() {
        @SuppressWarnings("unchecked")
        Map<String, Object> object = (Map<String, Object>) value("{\"z\":1,\"a\":2,\"m\":3}");

        assertThat(object.keySet()).containsExactly("z", "a", "m");
    }

    @Test
    void parse_duplicateKey_refusesNamingTheKey() {
        assertThat(reason("{\"content\":\"a\",\"kind\":1,\"content\":\"b\"}"))
                .isEqualTo("duplicate key \"content\" at offset 24");
    }

    @Test
    void parse_duplicateKeyInNestedObject_refuses() {
        assertThat(reason("[{\"a\":1,\"a\":1}]")).isEqualTo("duplicate key \"a\" at offset 8");
    }

    @Test
    void parse_duplicateKeySpelledWithEscape_refusesBecauseDecodedKeysAreEqual() {
        assertThat(reason("{\"id\":1,\"\\u0069d\":2}")).isEqualTo("duplicate key \"id\" at offset 8");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "1.0       | number 1.0 at offset 0 is not an integer: it has a fraction (only whole numbers without exponent are accepted)",
            "1e9       | number 1e9 at offset 0 is not an integer: it has an exponent (only whole numbers without exponent are accepted)",
            "-2E+3     | number -2E+3 at offset 0 is not an integer: it has an exponent (only whole numbers without exponent are accepted)",
            "1.5e3     | number 1.5e3 at offset 0 is not an integer: it has a fraction and an exponent (only whole numbers without exponent are accepted)",
            "01        | invalid number at offset 0: leading zero",
            "-         | invalid number at offset 0: a digit must follow '-'",
            "1.        | invalid number at offset 0: a digit must follow '.'",
            "1e        | invalid number at offset 0: a digit must follow the exponent mark",
            "+1        | unexpected '+' at offset 0",
            ".5        | unexpected '.' at offset 0",
            "9223372036854775808 | integer 9223372036854775808 at offset 0 is out of range (64-bit)",
            "NaN       | unexpected 'N' at offset 0",
    })
    void parse_nonIntegerOrBadNumber_refusesWithReason(String text, String reason) {
        assertThat(reason(text)).isEqualTo(reason);
    }

    @Test
    void parse_integerLimits_readsExactLongs() {
        assertThat(value("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(value("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
        assertThat(value("-0")).isEqualTo(0L);
    }

    @Test
    void parse_escapedLoneHighSurrogate_refuses() {
        assertThat(reason("\"a\\ud800b\"")).isEqualTo(
                "lone surrogate \\ud800 in the string starting at offset 0 (not valid Unicode, it has no UTF-8 form)");
    }

    @Test
    void parse_escapedLoneLowSurrogate_refuses() {
        assertThat(reason("[\"\\uDC00\"]")).startsWith("lone surrogate \\udc00 in the string starting at offset 1");
    }

    @Test
    void parse_rawLoneSurrogateInJavaString_refuses() {
        assertThat(reason("\"x\uD800\"")).startsWith("lone surrogate \\ud800");
    }

    @Test
    void parse_highSurrogateFollowedByEscapedNonSurrogate_refuses() {
        assertThat(reason("\"\\uD83C\\u0041\"")).startsWith("lone surrogate \\ud83c");
    }

    @Test
    void parse_escapedSurrogatePairEitherCase_decodesToTheCodePoint() {
        assertThat(value("\"\\uD83C\\uDF55\"")).isEqualTo("\uD83C\uDF55");
        assertThat(value("\"\\ud83c\\udf55\"")).isEqualTo("🍕");
    }

    @Test
    void parse_allShortEscapes_decodes() {
        assertThat(value("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"")).isEqualTo("\"\\/\b\f\n\r\t");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"\\x\"        | invalid escape \\x at offset 1",
            "\"\\u12\"      | truncated \\u escape at offset 1",
            "\"\\u12g4\"    | invalid \\u escape at offset 1",
            "\"abc          | unterminated string starting at offset 0",
    })
    void parse_badStringEscape_refusesWithReason(String text, String reason) {
        assertThat(reason(text)).isEqualTo(reason);
    }

    @Test
    void parse_rawControlCharacterInString_refuses() {
        assertThat(reason("\"a\nb\"")).isEqualTo("unescaped control character U+000A in a string at offset 2");
    }

    @Test
    void parse_nestingAtLimit_accepts() {
        String text = "[".repeat(StrictJson.MAX_DEPTH) + "]".repeat(StrictJson.MAX_DEPTH);

        assertThat(value(text)).isInstanceOf(List.class);
    }

    @Test
    void parse_nestingBeyondLimit_refuses() {
        String text = "[".repeat(StrictJson.MAX_DEPTH + 1) + "]".repeat(StrictJson.MAX_DEPTH + 1);

        assertThat(reason(text)).isEqualTo("nesting deeper than 64 at offset 64");
    }

    @Test
    void parse_deeplyNestedHostileInput_refusesWithoutStackOverflow() {
        assertThat(reason("{\"a\":".repeat(100_000))).startsWith("nesting deeper than 64");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''                | input is empty",
            "'   '             | input is empty",
            "{} x              | unexpected text after the JSON value at offset 3",
            "{\"a\" 1}         | expected ':' at offset 5, got '1'",
            "{\"a\":1,}        | expected a string key at offset 7, got '}'",
            "{a:1}             | expected a string key at offset 1, got 'a'",
            "[1 2]             | expected ',' or ']' at offset 3, got '2'",
            "[1,]              | unexpected ']' at offset 3",
            "{\"a\":1          | unexpected end of input inside an object",
            "[1                | unexpected end of input inside an array",
            "tru               | unexpected 't' at offset 0",
            "'\uFEFF{}'        | unexpected character U+FEFF at offset 0",
    })
    void parse_brokenStructure_refusesWithReason(String text, String reason) {
        assertThat(reason(text)).isEqualTo(reason);
    }

    @Test
    void parseBytes_validUtf8_decodesRawNonAscii() {
        assertThat(StrictJson.parse("\"café 🍕\u2028\"".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new StrictJson.Parsed.Value("café 🍕\u2028"));
    }

    @Test
    void parseBytes_invalidUtf8_refusesNamingTheByte() {
        byte[] bytes = {'"', 'a', (byte) 0xC3, '"'};

        assertThat(StrictJson.parse(bytes)).isEqualTo(new StrictJson.Parsed.Malformed("input is not valid UTF-8 at byte 2"));
    }

    @Test
    void parseBytes_utf8EncodedSurrogate_refuses() {
        byte[] bytes = {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'};

        assertThat(StrictJson.parse(bytes)).isEqualTo(new StrictJson.Parsed.Malformed("input is not valid UTF-8 at byte 1"));
    }

    @Test
    void parseBytes_overlongEncoding_refuses() {
        byte[] bytes = {'"', (byte) 0xC0, (byte) 0xAF, '"'};

        assertThat(StrictJson.parse(bytes)).isInstanceOf(StrictJson.Parsed.Malformed.class);
    }

    @Test
    void write_controlsAndSpecialCharacters_usesNip01Escaping() {
        String written = StrictJson.write("\"\\\b\t\n\f\r\u0000\u001a\u001f\u007f/<>&\u2028é🍕");

        assertThat(written).isEqualTo("\"\\\"\\\\\\b\\t\\n\\f\\r\\u0000\\u001a\\u001f\u007f/<>&\u2028é🍕\"");
    }

    @Test
    void write_document_isCompactAndReadsBackEqual() {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("items", List.of(1L, 2, "x", List.of()));
        document.put("next_cursor", null);
        document.put("ok", true);

        String written = StrictJson.write(document);

        assertThat(written).isEqualTo("{\"items\":[1,2,\"x\",[]],\"next_cursor\":null,\"ok\":true}");
        Map<String, Object> readBack = new LinkedHashMap<>();
        readBack.put("items", List.of(1L, 2L, "x", List.of()));
        readBack.put("next_cursor", null);
        readBack.put("ok", true);
        assertThat(value(written)).isEqualTo(readBack);
    }

    @Test
    void write_loneSurrogate_refuses() {
        assertThatThrownBy(() -> StrictJson.write("a\uDC00"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("string holds a lone surrogate \\udc00 at index 1");
    }

    @Test
    void write_floatingPointNumber_refuses() {
        assertThatThrownBy(() -> StrictJson.write(1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot write a java.lang.Double as strict JSON");
    }
}

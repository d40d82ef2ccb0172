package buzz.scheduled.domain.nostr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NostrEventJsonTest {

    private static final String PUBKEY = "c62114bce8f2c856c34c059f19aa69c05bd7c42c727791879652d6b206817036";
    private static final String SIG = "a".repeat(128);

    private static String wire(String createdAt, String kind, String tags, String content) {
        UnsignedEvent unsigned = new UnsignedEvent(new PublicKey(PUBKEY), 1767225600L, 1, List.of(), "x");
        return "{\"id\":\"" + unsigned.computeId().hex() + "\",\"pubkey\":\"" + PUBKEY + "\",\"created_at\":" + createdAt
                + ",\"kind\":" + kind + ",\"tags\":" + tags + ",\"content\":" + content + ",\"sig\":\"" + SIG + "\"}";
    }

    private static String reason(String text) {
        NostrEventJson.Decoded decoded = NostrEventJson.read(text);
        assertThat(decoded).as(text).isInstanceOf(NostrEventJson.Decoded.Malformed.class);
        return ((NostrEventJson.Decoded.Malformed) decoded).reason();
    }

    @Test
    void read_wellFormedEvent_returnsTheSevenFields() {
        NostrEventJson.Decoded decoded = NostrEventJson.read(
                wire("1767225600", "9", "[[\"h\",\"room\"],[\"p\",\"x\",\"wss://r\"]]", "\"hi\""));

        NostrEvent event = ((NostrEventJson.Decoded.Event) decoded).event();
        assertThat(event.pubkey().hex()).isEqualTo(PUBKEY);
        assertThat(event.createdAt()).isEqualTo(1767225600L);
        assertThat(event.kind()).isEqualTo(9);
        assertThat(event.tags()).containsExactly(List.of("h", "room"), List.of("p", "x", "wss://r"));
        assertThat(event.content()).isEqualTo("hi");
        assertThat(event.sig().hex()).isEqualTo(SIG);
        assertThat(event.firstTagValue("h")).contains("room");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "-5          | 1      | []            | \"x\"  | created_at must not be negative, got -5",
            "true        | 1      | []            | \"x\"  | created_at must be an integer, got a boolean",
            "1           | -1     | []            | \"x\"  | kind must be between 0 and 65535, got -1",
            "1           | 4294967297 | []        | \"x\"  | kind must be between 0 and 65535, got 4294967297",
            "1           | \"1\"  | []            | \"x\"  | kind must be an integer, got a string",
            "1           | 1      | null          | \"x\"  | tags must be an array of arrays, got null",
            "1           | 1      | [[\"a\"],[]]  | \"x\"  | tags[1] is empty: a tag has one or more strings",
            "1           | 1      | [[\"a\",[\"b\"]]] | \"x\" | tags[0][1] must be a string, got an array",
            "1           | 1      | [{}]          | \"x\"  | tags[0] must be an array of strings, got an object",
            "1           | 1      | []            | 7      | content must be a string, got an integer",
    })
    void read_fieldOfWrongShape_refusesNamingTheField(
            String createdAt, String kind, String tags, String content, String expected) {
        assertThat(reason(wire(createdAt, kind, tags, content))).isEqualTo(expected);
    }

    @Test
    void read_notAnObject_refuses() {
        assertThat(reason("[1]")).isEqualTo("event must be a JSON object, got an array");
    }

    @Test
    void read_brokenJson_refusesWithTheParserReason() {
        assertThat(reason("{\"id\":")).isEqualTo("unexpected end of input");
    }

    @Test
    void read_extraField_refusesNamingIt() {
        String text = wire("1", "1", "[]", "\"x\"").replace("{\"id\"", "{\"seen_on\":[],\"id\"");

        assertThat(reason(text)).startsWith("unknown field \"seen_on\"");
    }

    @Test
    void read_uppercaseSig_refusesNamingSig() {
        String text = wire("1", "1", "[]", "\"x\"").replace(SIG, "A".repeat(128));

        assertThat(reason(text)).isEqualTo("uppercase hex in sig (NIP-01 requires lowercase)");
    }

    @Test
    void readBytes_invalidUtf8_refuses() {
        byte[] bytes = wire("1", "1", "[]", "\"x\"").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        bytes[bytes.length - 5] = (byte) 0xFF;

        assertThat(NostrEventJson.read(bytes)).isInstanceOf(NostrEventJson.Decoded.Malformed.class)
                .extracting(d -> ((NostrEventJson.Decoded.Malformed) d).reason())
                .asString().startsWith("input is not valid UTF-8 at byte");
    }

    @Test
    void fromJson_parsedRequestBodyMember_readsTheEvent() {
        String body = "{\"event\":" + wire("1", "1", "[]", "\"x\"") + "}";
        Object parsed = ((StrictJson.Parsed.Value) StrictJson.parse(body)).value();

        NostrEventJson.Decoded decoded = NostrEventJson.fromJson(((java.util.Map<?, ?>) parsed).get("event"));

        assertThat(decoded).isInstanceOf(NostrEventJson.Decoded.Event.class);
    }

    @Test
    void write_event_putsFieldsInNip01Order() {
        NostrEvent event = new UnsignedEvent(new PublicKey(PUBKEY), 5, 1, List.of(List.of("t", "a")), "q\"")
                .withSignature(new Signature(SIG));

        assertThat(NostrEventJson.write(event)).isEqualTo("{\"id\":\"" + event.id().hex() + "\",\"pubkey\":\"" + PUBKEY
                + "\",\"created_at\":5,\"kind\":1,\"tags\":[[\"t\",\"a\"]],\"content\":\"q\\\"\",\"sig\":\"" + SIG + "\"}");
    }

    @Test
    void constructor_loneSurrogateInTag_refusesNamingTheTag() {
        assertThatThrownBy(() -> new UnsignedEvent(new PublicKey(PUBKEY), 1, 1, List.of(List.of("t", "\uD800")), ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tags[0][1] holds a lone surrogate \\ud800 at index 0");
    }

    @Test
    void constructor_tagsCopied_laterChangesToTheInputDoNotLeakIn() {
        List<String> tag = new java.util.ArrayList<>(List.of("t", "a"));
        List<List<String>> tags = new java.util.ArrayList<>(List.of(tag));
        UnsignedEvent event = new UnsignedEvent(new PublicKey(PUBKEY), 1, 1, tags, "");

        tag.add("b");
        tags.add(List.of("x"));

        assertThat(event.tags()).containsExactly(List.of("t", "a"));
    }

    @Test
    void canonicalSerialization_knownEvent_matchesNip01Form() {
        UnsignedEvent event = new UnsignedEvent(new PublicKey(PUBKEY), 1767225600L, 1, List.of(), "hello nostr");

        assertThat(event.canonicalSerialization())
                .isEqualTo("[0,\"" + PUBKEY + "\",1767225600,1,[],\"hello nostr\"]");
        assertThat(event.computeId().hex())
                .isEqualTo("86dfc35469de4f65c629ba0e990a7d56ddd4ba116531f9ae55d945284359d8b3");
    }
}

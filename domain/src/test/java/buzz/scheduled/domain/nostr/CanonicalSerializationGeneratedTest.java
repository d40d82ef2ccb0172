package buzz.scheduled.domain.nostr;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Generated events (seeded, {@value #CASES} per property) through the serializer and the strict reader. */
class CanonicalSerializationGeneratedTest {
    private static final int CASES = 300;

    static LongStream seeds() {
        return LongStream.range(0, CASES);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void canonicalSerialization_randomEvent_parsesBackToTheFiveFields(long seed) {
        UnsignedEvent event = new RandomEventFields(seed).unsignedEvent();

        Object parsed = ((StrictJson.Parsed.Value) StrictJson.parse(event.canonicalSerialization())).value();

        assertThat(parsed).isEqualTo(List.of(0L, event.pubkey().hex(), event.createdAt(), (long) event.kind(),
                event.tags(), event.content()));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void canonicalSerialization_randomContent_escapesExactlyLikeJsonStringify(long seed) {
        UnsignedEvent event = new RandomEventFields(seed).unsignedEvent();

        String serialized = event.canonicalSerialization();

        assertThat(serialized).endsWith(",\"" + stringifyReference(event.content()) + "\"]");
    }

    /** JSON.stringify's string escaping, code point by code point (an independent statement of the rule). */
    private static String stringifyReference(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(cp -> {
            switch (cp) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case 0x08 -> out.append("\\b");
                case 0x09 -> out.append("\\t");
                case 0x0a -> out.append("\\n");
                case 0x0c -> out.append("\\f");
                case 0x0d -> out.append("\\r");
                default -> {
                    if (cp < 0x20) {
                        out.append(String.format("\\u%04x", cp));
                    } else {
                        out.appendCodePoint(cp);
                    }
                }
            }
        });
        return out.toString();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void computeId_randomEvent_isSha256OfTheUtf8Serialization(long seed) throws Exception {
        UnsignedEvent event = new RandomEventFields(seed).unsignedEvent();

        byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest(event.canonicalSerialization().getBytes(StandardCharsets.UTF_8));

        assertThat(event.computeId().hex()).isEqualTo(Hex.encode(digest));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void write_randomSignedEvent_readsBackEqual(long seed) {
        RandomEventFields fields = new RandomEventFields(seed);
        NostrEvent event = fields.unsignedEvent().withSignature(new Signature(fields.hex(64)));

        NostrEventJson.Decoded decoded = NostrEventJson.read(NostrEventJson.write(event));

        assertThat(decoded).isEqualTo(new NostrEventJson.Decoded.Event(event));
        assertThat(((NostrEventJson.Decoded.Event) decoded).event().idMatchesContent()).isTrue();
    }
}

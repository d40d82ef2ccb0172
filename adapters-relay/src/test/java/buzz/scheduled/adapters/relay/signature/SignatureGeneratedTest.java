package buzz.scheduled.adapters.relay.signature;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.EventSignatures.Verdict;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.RandomEventFields;
import buzz.scheduled.domain.nostr.Signature;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Generated events (seeded: random keys, random Unicode content and tags; {@value #CASES} per property) signed by
 * our signer verify, and flipping any one byte of the id, the signature or the content makes them fail.
 */
class SignatureGeneratedTest {
    private static final int CASES = 200;
    private static final SecureRandom AUX = new SecureRandom();

    private final Bip340EventSignatures signatures = new Bip340EventSignatures();

    static LongStream seeds() {
        return LongStream.range(0, CASES);
    }

    /** A valid secret key drawn from the seeded fields (redrawn in the ~2^-128 case it is out of range). */
    private static SecretKey secretKey(RandomEventFields fields) {
        while (true) {
            try {
                return new SecretKey(fields.hex(32));
            } catch (IllegalArgumentException outOfRange) {
                // draw again
            }
        }
    }

    private static NostrEvent signedEvent(RandomEventFields fields) {
        Bip340Signer signer = new Bip340Signer(secretKey(fields), AUX);
        var unsigned = fields.unsignedEvent();
        return signer.sign(unsigned.createdAt(), unsigned.kind(), unsigned.tags(), unsigned.content());
    }

    private static byte[] flipOneByte(byte[] bytes, RandomEventFields fields) {
        byte[] flipped = bytes.clone();
        flipped[fields.nextInt(bytes.length)] ^= (byte) (1 + fields.nextInt(255));
        return flipped;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void verify_randomEventSignedByOurSigner_isValidAlsoAfterAWireRoundTrip(long seed) {
        NostrEvent event = signedEvent(new RandomEventFields(seed));

        NostrEventJson.Decoded readBack = NostrEventJson.read(NostrEventJson.write(event).getBytes(StandardCharsets.UTF_8));

        assertThat(signatures.verify(event)).isEqualTo(new Verdict.Valid());
        assertThat(readBack).isEqualTo(new NostrEventJson.Decoded.Event(event));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void verify_oneIdByteFlipped_isInvalidBecauseTheIdNoLongerMatches(long seed) {
        RandomEventFields fields = new RandomEventFields(seed);
        NostrEvent event = signedEvent(fields);
        EventId flipped = new EventId(Hex.encode(flipOneByte(Hex.decode(event.id().hex()), fields)));

        NostrEvent tampered = new NostrEvent(flipped, event.pubkey(), event.createdAt(), event.kind(), event.tags(),
                event.content(), event.sig());

        assertThat(signatures.verify(tampered)).isEqualTo(new Verdict.Invalid(Bip340EventSignatures.ID_MISMATCH));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void verify_oneSignatureByteFlipped_isInvalidBecauseTheSignatureFails(long seed) {
        RandomEventFields fields = new RandomEventFields(seed);
        NostrEvent event = signedEvent(fields);
        Signature flipped = new Signature(Hex.encode(flipOneByte(Hex.decode(event.sig().hex()), fields)));

        NostrEvent tampered = new NostrEvent(event.id(), event.pubkey(), event.createdAt(), event.kind(), event.tags(),
                event.content(), flipped);

        assertThat(signatures.verify(tampered))
                .isEqualTo(new Verdict.Invalid(Bip340EventSignatures.SIGNATURE_MISMATCH));
    }

    /**
     * The content's bytes are flipped on the wire (inside the UTF-8 JSON text), so a flip may also break the UTF-8,
     * an escape or the JSON structure: then the strict reader refuses; otherwise the id no longer matches.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void read_oneContentByteFlippedOnTheWire_isRefusedOrInvalid(long seed) {
        RandomEventFields fields = new RandomEventFields(seed);
        NostrEvent event = signedEvent(fields);
        if (event.content().isEmpty()) {
            event = new Bip340Signer(secretKey(fields), AUX).sign(event.createdAt(), event.kind(), event.tags(), "x");
        }
        String text = NostrEventJson.write(event);
        byte[] wire = text.getBytes(StandardCharsets.UTF_8);
        String marker = "\"content\":\"";
        // content is written just before the fixed-size sig member: ...,"content":"<escaped>","sig":"<128 hex>"}
        int contentStart = text.substring(0, text.indexOf(marker) + marker.length()).getBytes(StandardCharsets.UTF_8).length;
        int contentEnd = wire.length - ("\",\"sig\":\"".length() + 128 + "\"}".length());
        byte[] flipped = wire.clone();
        int position = contentStart + fields.nextInt(contentEnd - contentStart);
        flipped[position] ^= (byte) (1 + fields.nextInt(255));

        NostrEventJson.Decoded decoded = NostrEventJson.read(flipped);

        assertThat(Arrays.equals(flipped, wire)).isFalse();
        Verdict verdict = decoded instanceof NostrEventJson.Decoded.Event read ? signatures.verify(read.event()) : null;
        assertThat(verdict).isNotEqualTo(new Verdict.Valid());
        if (verdict != null) {
            assertThat(verdict).isEqualTo(new Verdict.Invalid(Bip340EventSignatures.ID_MISMATCH));
        }
    }
}

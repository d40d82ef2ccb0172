package buzz.scheduled.domain.nostr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Bech32} against the test vectors of BIP-173 ("Appendices: Test vectors"). */
class Bech32Test {

    @ParameterizedTest
    @ValueSource(strings = {
            "A12UEL5L",
            "a12uel5l",
            "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
            "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
            "11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j",
            "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
            "?1ezyfcl"})
    void decode_validBip173String_reencodesToTheSameTextInLowercase(String text) {
        Bech32.Decoded decoded = Bech32.decode(text);

        assertThat(decoded.humanReadablePart()).isEqualTo(text.substring(0, text.lastIndexOf('1')).toLowerCase(Locale.ROOT));
        assertThat(Bech32.encode(decoded.humanReadablePart(), decoded.data())).isEqualTo(text.toLowerCase(Locale.ROOT));
    }

    static Stream<Arguments> invalidStrings() {
        return Stream.of(
                Arguments.of((char) 0x20 + "1nwldj5", "out of range at index 0"),
                Arguments.of((char) 0x7f + "1axkwrx", "out of range at index 0"),
                Arguments.of((char) 0x80 + "1eym55h", "out of range at index 0"),
                Arguments.of("an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx",
                        "91 characters; at most 90"),
                Arguments.of("pzry9x0s0muk", "no separator"),
                Arguments.of("1pzry9x0s0muk", "empty human-readable part"),
                Arguments.of("x1b4n0q5v", "index 2 that is not in the data alphabet"),
                Arguments.of("li1dgmt3", "checksum shorter than 6"),
                Arguments.of("de1lg7wt" + (char) 0xff, "out of range at index 8"),
                Arguments.of("A1G7SGD8", "checksum does not match"),
                Arguments.of("10a06t8", "empty human-readable part"),
                Arguments.of("1qzzfhee", "empty human-readable part"),
                Arguments.of("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7", "mixes upper and lower"),
                Arguments.of("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", "checksum does not match"));
    }

    @ParameterizedTest
    @MethodSource("invalidStrings")
    void decode_invalidBip173String_isRefusedSayingWhichRule(String text, String reason) {
        assertThatThrownBy(() -> Bech32.decode(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(reason);
    }

    static Stream<Arguments> segwitAddresses() {
        return Stream.of(
                Arguments.of("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "0014751e76e8199196d454941c45d1b3a323f1433bd6"),
                Arguments.of("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
                        "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262"),
                Arguments.of("bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx",
                        "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6"),
                Arguments.of("BC1SW50QA3JX3S", "6002751e"),
                Arguments.of("bc1zw508d6qejxtdg4y5r3zarvaryvg6kdaj", "5210751e76e8199196d454941c45d1b3a323"),
                Arguments.of("tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy",
                        "0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433"));
    }

    /** The address vectors exercise the 5-to-8 bit regrouping: the program bytes follow version and length. */
    @ParameterizedTest
    @MethodSource("segwitAddresses")
    void fromFiveBit_validSegwitAddress_givesTheWitnessProgramOfItsScriptPubKey(String address, String scriptPubKey) {
        byte[] data = Bech32.decode(address).data();
        byte[] script = HexFormat.of().parseHex(scriptPubKey);

        byte[] program = Bech32.fromFiveBit(Arrays.copyOfRange(data, 1, data.length));

        int version = data[0];
        assertThat(script[0] & 0xff).isEqualTo(version == 0 ? 0 : 0x50 + version);
        assertThat(script[1] & 0xff).isEqualTo(program.length);
        assertThat(program).isEqualTo(Arrays.copyOfRange(script, 2, script.length));
        assertThat(Bech32.toFiveBit(program)).isEqualTo(Arrays.copyOfRange(data, 1, data.length));
    }

    @Test
    void fromFiveBit_moreThanFourBitsOfZeroPadding_isRefused() {
        byte[] data = Bech32.decode("bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du").data();

        assertThatThrownBy(() -> Bech32.fromFiveBit(Arrays.copyOfRange(data, 1, data.length)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("7 bits of padding; at most 4");
    }

    @Test
    void fromFiveBit_nonZeroPadding_isRefused() {
        byte[] data = Bech32.decode("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3pjxtptv").data();

        assertThatThrownBy(() -> Bech32.fromFiveBit(Arrays.copyOfRange(data, 1, data.length)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-zero padding");
    }

    @Test
    void encode_uppercaseHumanReadablePart_isRefused() {
        assertThatThrownBy(() -> Bech32.encode("NPUB", new byte[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lowercase");
    }

    @Test
    void encode_valueWiderThanFiveBits_isRefused() {
        assertThatThrownBy(() -> Bech32.encode("a", new byte[] {32}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a 5-bit group");
    }
}

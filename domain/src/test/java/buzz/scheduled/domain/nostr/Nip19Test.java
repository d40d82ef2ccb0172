package buzz.scheduled.domain.nostr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Nip19} against NIP-19's own examples, and against what nostr-tools 2.25.2 ({@code nip19.npubEncode},
 * {@code nsecEncode}) writes for the test keys of {@code vectors/nostr-keys.json} (one has a leading zero byte).
 */
class Nip19Test {

    @Test
    void publicKey_nip19ExampleNpub_decodesToItsHexAndBack() {
        String npub = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg";
        String hex = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";

        assertThat(Nip19.publicKey(npub)).isEqualTo(new PublicKey(hex));
        assertThat(Nip19.npub(new PublicKey(hex))).isEqualTo(npub);
    }

    @Test
    void npub_nip19ProseExample_matches() {
        assertThat(Nip19.npub(new PublicKey("3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d")))
                .isEqualTo("npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6");
    }

    @Test
    void secretKeyHex_nip19ExampleNsec_decodesToItsHexAndBack() {
        String nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
        String hex = "67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa";

        assertThat(Nip19.secretKeyHex(nsec)).isEqualTo(hex);
        assertThat(Nip19.nsec(hex)).isEqualTo(nsec);
    }

    static Stream<Arguments> nostrToolsKeys() {
        return Stream.of(
                Arguments.of("bfc8054fd72c3a3d2815e4a0b377c8b5bba4978057cd98580522d3ab82ebe292",
                        "c62114bce8f2c856c34c059f19aa69c05bd7c42c727791879652d6b206817036",
                        "nsec1hlyq2n7h9sar62q4ujstxa7gkka6f9uq2lxeskq9ytf6hqhtu2fq9r4hw0",
                        "npub1ccs3f08g7ty9ds6vqk03n2nfcpda03pvwfmerpuk2tttyp5pwqmqgg9327"),
                Arguments.of("1d95bb09966daf0da66d8bce5cd7634cb3eaf72b04135a592f6c0ac192f46c8b",
                        "472790b449df646a75a889d2c6404a3254fc5754179e023aca6b5ad8b499a42b",
                        "nsec1rk2mkzvkdkhsmfnd3089e4mrfje74aetqsf45kf0ds9vryh5dj9s99syyp",
                        "npub1gunepdzfmajx5adg38fvvsz2xf20c465z70qywk2dddd3dye5s4s7dmz82"),
                Arguments.of("ee9ba83148885126fb4369c632bec7afc0463de2ba1e16878a743182be6a0196",
                        "00654caad82767a7d0bc2c69d687f001498cd2c7c83d45b4bd611be1cab5b59b",
                        "nsec1a6d6sv2g3pgjd76rd8rr90k84lqyv00zhg0pdpu2wscc90n2qxtq03cjlj",
                        "npub1qpj5e2kcyan6059u935adplsq9yce5k8eq75td9avyd7rj44kkdsczpqw7"));
    }

    @ParameterizedTest
    @MethodSource("nostrToolsKeys")
    void encode_testKey_matchesNostrToolsBothWays(String secretHex, String pubkeyHex, String nsec, String npub) {
        assertThat(Nip19.nsec(secretHex)).isEqualTo(nsec);
        assertThat(Nip19.npub(new PublicKey(pubkeyHex))).isEqualTo(npub);
        assertThat(Nip19.secretKeyHex(nsec)).isEqualTo(secretHex);
        assertThat(Nip19.publicKey(npub).hex()).isEqualTo(pubkeyHex);
    }

    @Test
    void eventId_note_roundTrips() {
        EventId id = new EventId("0000000000000000000000000000000000000000000000000000000000000001");

        assertThat(Nip19.note(id)).isEqualTo("note1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqsxthhhz");
        assertThat(Nip19.eventId(Nip19.note(id))).isEqualTo(id);
    }

    @Test
    void publicKey_uppercaseNpub_isAccepted() {
        assertThat(Nip19.publicKey("NPUB10ELFCS4FR0L0R8AF98JLMGDH9C8TCXJVZ9QKW038JS35MP4DMA8QZVJPTG").hex())
                .isEqualTo("7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e");
    }

    @Test
    void publicKey_nsecGiven_isRefusedNamingThePrefix() {
        assertThatThrownBy(() -> Nip19.publicKey("nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expected a NIP-19 npub value, got the prefix 'nsec'");
    }

    @Test
    void publicKey_oneCharacterChanged_isRefusedByTheChecksum() {
        assertThatThrownBy(() -> Nip19.publicKey("npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjpth"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("checksum does not match");
    }

    @Test
    void publicKey_wrongLength_isRefusedSayingHowManyBytes() {
        String short20 = Bech32.encode("npub", Bech32.toFiveBit(new byte[20]));

        assertThatThrownBy(() -> Nip19.publicKey(short20)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a NIP-19 npub value holds 32 bytes, this one 20");
    }

    @Test
    void secretKeyHex_badCharacter_messageDoesNotQuoteTheKey() {
        String nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfeb";

        assertThatThrownBy(() -> Nip19.secretKeyHex(nsec)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index 62").hasMessageNotContaining("vl029");
    }
}

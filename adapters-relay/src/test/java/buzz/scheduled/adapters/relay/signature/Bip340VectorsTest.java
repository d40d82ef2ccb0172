package buzz.scheduled.adapters.relay.signature;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.nostr.Hex;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The official BIP-340 vectors (bitcoin/bips bip-0340/test-vectors.csv): every row verifies as stated, and every
 * row with a secret key is reproduced byte for byte by our signer with its aux_rand. */
class Bip340VectorsTest {

    /** One CSV row; hex columns are uppercase in the file and empty where the row has no such value. */
    record Row(int index, String secretKey, String publicKey, String auxRand, String message, String signature,
               boolean verifies, String comment) {

        @Override
        public String toString() {
            return "row " + index + (comment.isEmpty() ? "" : " (" + comment + ")");
        }
    }

    static List<Row> rows() throws IOException {
        try (InputStream in = Bip340VectorsTest.class.getResourceAsStream("/vectors/bip340-test-vectors.csv")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return text.lines().skip(1).filter(line -> !line.isBlank()).map(line -> {
                String[] cells = Arrays.copyOf(line.split(",", -1), 8);
                return new Row(Integer.parseInt(cells[0]), lower(cells[1]), lower(cells[2]), lower(cells[3]),
                        lower(cells[4]), lower(cells[5]), cells[6].equals("TRUE"), cells[7] == null ? "" : cells[7]);
            }).toList();
        }
    }

    static Stream<Row> signingRows() throws IOException {
        return rows().stream().filter(row -> !row.secretKey().isEmpty());
    }

    private static String lower(String cell) {
        return cell == null ? "" : cell.toLowerCase(Locale.ROOT);
    }

    @Test
    void vectorFile_read_holdsNineteenRowsEightSigningTenFailing() throws IOException {
        assertThat(rows()).hasSize(19);
        assertThat(signingRows()).hasSize(8);
        assertThat(rows().stream().filter(row -> !row.verifies())).hasSize(10);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void verifyMessage_everyRow_answersTheVerificationResult(Row row) {
        boolean verified = Bip340EventSignatures.verifyMessage(
                Hex.decode(row.publicKey()), Hex.decode(row.message()), Hex.decode(row.signature()));

        assertThat(verified).isEqualTo(row.verifies());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("signingRows")
    void signMessage_rowWithSecretKey_reproducesTheSignatureAndPublicKey(Row row) {
        SecretKey key = new SecretKey(row.secretKey());
        Bip340Signer signer = Bip340Signer.withFixedAux(key, Hex.decode(row.auxRand()));

        byte[] signature = signer.signMessage(Hex.decode(row.message()));

        assertThat(Hex.encode(signature)).isEqualTo(row.signature());
        assertThat(key.publicKey().hex()).isEqualTo(row.publicKey());
    }
}

package buzz.scheduled.domain.nostr;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** NIP-13: difficulty as leading zero bits of the id, and the target a nonce tag commits to. */
class ProofOfWorkTest {

    private static final PublicKey AUTHOR = new PublicKey("a1".repeat(32));
    private static final Signature SIG = new Signature("5a".repeat(64));

    private static NostrEvent event(String idHex, List<List<String>> tags) {
        return new NostrEvent(new EventId(idHex), AUTHOR, 1_800_000_000L, 1, tags, "", SIG);
    }

    @ParameterizedTest
    @CsvSource({
            "000000000e9d97a1ab09fc381030b346cdd7a142ad57e6df0b46dc9bef6c7e2d, 36", // NIP-13's example
            "000006d8c378af1779d2feebc7603a125d99eca0ccf1085959b307f64e5dd358, 21", // NIP-13's mined note
            "8000000000000000000000000000000000000000000000000000000000000000, 0",
            "1000000000000000000000000000000000000000000000000000000000000000, 3",
            "0000000000000000000000000000000000000000000000000000000000000000, 256"})
    void of_countsTheLeadingZeroBitsOfTheId(String id, int bits) {
        assertThat(ProofOfWork.of(event(id, List.of())).difficulty()).isEqualTo(bits);
    }

    @Test
    void credited_withoutANonceTag_isTheDifficulty() {
        ProofOfWork pow = ProofOfWork.of(event("000006d8c378af1779d2feebc7603a125d99eca0ccf1085959b307f64e5dd358",
                List.of(List.of("nonce", "776797"))));

        assertThat(pow.committedTarget()).isEmpty();
        assertThat(pow.credited()).isEqualTo(21);
    }

    @Test
    void credited_aLuckyIdAboveItsCommittedTarget_countsOnlyTheTarget() {
        ProofOfWork pow = ProofOfWork.of(event("000000000e9d97a1ab09fc381030b346cdd7a142ad57e6df0b46dc9bef6c7e2d",
                List.of(List.of("nonce", "1", "20"))));

        assertThat(pow.committedTarget()).isEqualTo(OptionalInt.of(20));
        assertThat(pow.credited()).isEqualTo(20);
    }

    @Test
    void credited_aTargetAboveTheDifficulty_isTheDifficulty() {
        ProofOfWork pow = ProofOfWork.of(event("000006d8c378af1779d2feebc7603a125d99eca0ccf1085959b307f64e5dd358",
                List.of(List.of("nonce", "776797", "30"))));

        assertThat(pow.credited()).isEqualTo(21);
    }

    @Test
    void credited_aTargetThatIsNotADecimalNumber_commitsToNothingAndCountsZero() {
        ProofOfWork pow = ProofOfWork.of(event("000006d8c378af1779d2feebc7603a125d99eca0ccf1085959b307f64e5dd358",
                List.of(List.of("nonce", "776797", "twenty"))));

        assertThat(pow.credited()).isZero();
    }
}

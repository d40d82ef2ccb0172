package buzz.scheduled.adapters.relay.signature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class SecretKeyTest {
    private static final String N = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";

    @Test
    void constructor_zero_refusesAsOutOfRange() {
        assertThatThrownBy(() -> new SecretKey("0".repeat(64)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("secret key is out of range: it must be between 1 and n-1 (BIP-340)");
    }

    @Test
    void constructor_curveOrder_refusesAsOutOfRange() {
        assertThatThrownBy(() -> new SecretKey(N)).hasMessageContaining("out of range");
    }

    @Test
    void constructor_curveOrderMinusOne_accepts() {
        assertThat(new SecretKey(N.substring(0, 63) + "0").publicKey().hex()).hasSize(64);
    }

    @Test
    void constructor_uppercase_refusesWithoutQuotingTheKey() {
        String upper = "BFC8054FD72C3A3D2815E4A0B377C8B5BBA4978057CD98580522D3AB82EBE292";

        assertThatThrownBy(() -> new SecretKey(upper))
                .hasMessage("uppercase hex in secret key (NIP-01 requires lowercase)")
                .message().doesNotContain("BFC8");
    }

    @Test
    void toString_neverShowsTheKey() {
        SecretKey key = SecretKey.generate(new SecureRandom());

        assertThat(key.toString()).isEqualTo("SecretKey[redacted]").doesNotContain(key.hex());
    }

    @Test
    void generate_twice_givesDifferentValidKeys() {
        SecureRandom random = new SecureRandom();

        assertThat(SecretKey.generate(random)).isNotEqualTo(SecretKey.generate(random));
    }
}

package buzz.scheduled.adapters.relay.signature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.application.port.out.EventSignatures.Verdict;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.UnsignedEvent;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

class Bip340SignerTest {
    // alice from vectors/nostr-keys.json (test-only key)
    private static final SecretKey ALICE = new SecretKey("bfc8054fd72c3a3d2815e4a0b377c8b5bba4978057cd98580522d3ab82ebe292");
    private static final PublicKey ALICE_PUBKEY =
            new PublicKey("c62114bce8f2c856c34c059f19aa69c05bd7c42c727791879652d6b206817036");
    // bob's key has an odd-y point, which BIP-340 signing must negate
    private static final SecretKey BOB = new SecretKey("1d95bb09966daf0da66d8bce5cd7634cb3eaf72b04135a592f6c0ac192f46c8b");

    private final Bip340EventSignatures signatures = new Bip340EventSignatures();

    @Test
    void sign_nip42AuthEvent_verifiesAndCarriesTheKeysPubkey() {
        Bip340Signer signer = new Bip340Signer(ALICE, new SecureRandom());

        NostrEvent auth = signer.sign(1_767_225_600L, 22242,
                List.of(List.of("relay", "ws://127.0.0.1:7777"), List.of("challenge", "c-123")), "");

        assertThat(auth.pubkey()).isEqualTo(ALICE_PUBKEY);
        assertThat(auth.kind()).isEqualTo(22242);
        assertThat(auth.idMatchesContent()).isTrue();
        assertThat(signatures.verify(auth)).isEqualTo(new Verdict.Valid());
    }

    @Test
    void sign_oddYKey_verifies() {
        NostrEvent event = new Bip340Signer(BOB, new SecureRandom()).sign(1, 1, List.of(), "odd y");

        assertThat(event.pubkey().hex()).isEqualTo("472790b449df646a75a889d2c6404a3254fc5754179e023aca6b5ad8b499a42b");
        assertThat(signatures.verify(event)).isEqualTo(new Verdict.Valid());
    }

    @Test
    void sign_randomAux_givesDifferentSignaturesThatBothVerify() {
        Bip340Signer signer = new Bip340Signer(ALICE, new SecureRandom());

        NostrEvent first = signer.sign(1, 1, List.of(), "same");
        NostrEvent second = signer.sign(1, 1, List.of(), "same");

        assertThat(first.id()).isEqualTo(second.id());
        assertThat(first.sig()).isNotEqualTo(second.sig());
        assertThat(signatures.verify(first)).isEqualTo(new Verdict.Valid());
        assertThat(signatures.verify(second)).isEqualTo(new Verdict.Valid());
    }

    @Test
    void sign_fixedAux_isDeterministic() {
        Bip340Signer signer = Bip340Signer.withFixedAux(ALICE, new byte[32]);

        assertThat(signer.sign(1, 1, List.of(), "x")).isEqualTo(signer.sign(1, 1, List.of(), "x"));
    }

    @Test
    void sign_unsignedEventOfAnotherPubkey_refuses() {
        Bip340Signer signer = new Bip340Signer(ALICE, new SecureRandom());
        UnsignedEvent bobs = new UnsignedEvent(new Bip340Signer(BOB, new SecureRandom()).publicKey(), 1, 1, List.of(), "");

        assertThatThrownBy(() -> signer.sign(bobs))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("event pubkey 4727");
    }

    @Test
    void withFixedAux_wrongLength_refuses() {
        assertThatThrownBy(() -> Bip340Signer.withFixedAux(ALICE, new byte[31]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("aux_rand must be 32 bytes");
    }
}

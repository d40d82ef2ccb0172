package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.encryption.GiftWrap;
import buzz.scheduled.adapters.relay.encryption.Nip04;
import buzz.scheduled.adapters.relay.encryption.Nip44;
import buzz.scheduled.adapters.relay.encryption.Nip44.Opened;
import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * NIP-44 v2, NIP-04 and NIP-17/NIP-59 against nostr-tools' own functions (2.25.2, bootstrap/src/test/nostr-tools):
 * what the sidecar encrypts or wraps, nostr-tools reads, and the reverse.
 */
class NostrToolsNip44Test {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecretKey ALICE = new SecretKey("a1".repeat(32));
    private static final SecretKey BOB = new SecretKey("b2".repeat(32));
    private static final List<String> PLAINTEXTS = List.of("a", "hello, Bob", "caf\u00e9 \u2028 \"quoted\" \\ \ud83e\udd84",
            "x".repeat(300), "long ".repeat(13_107));

    @Test
    void nip44_encryptedHere_isDecryptedByNostrTools() {
        Nip44.ConversationKey key = Nip44.conversationKey(ALICE, BOB.publicKey());
        for (String plaintext : PLAINTEXTS) {
            String payload = Nip44.encrypt(plaintext, key, new SecureRandom());

            JsonNode answer = NostrToolsClient.crypto(Map.of("op", "nip44-decrypt", "secret_key", BOB.hex(),
                    "peer", ALICE.publicKey().hex(), "payload", payload));

            assertThat(answer.path("plaintext").asText()).as(answer.toString()).isEqualTo(plaintext);
        }
    }

    @Test
    void nip44_encryptedByNostrTools_isDecryptedHere() {
        Nip44.ConversationKey key = Nip44.conversationKey(BOB, ALICE.publicKey());
        for (String plaintext : PLAINTEXTS) {
            String payload = NostrToolsClient.crypto(Map.of("op", "nip44-encrypt", "secret_key", ALICE.hex(),
                    "peer", BOB.publicKey().hex(), "plaintext", plaintext)).path("payload").asText();

            assertThat(Nip44.decrypt(payload, key)).isEqualTo(new Opened.Plaintext(plaintext));
        }
    }

    @Test
    void nip04_encryptedByNostrTools_isDecryptedHere_andAnotherKeyCannotRead() {
        String payload = NostrToolsClient.crypto(Map.of("op", "nip04-encrypt", "secret_key", ALICE.hex(),
                "peer", BOB.publicKey().hex(), "plaintext", PLAINTEXTS.get(2))).path("payload").asText();

        assertThat(Nip04.looksLikeNip04(payload)).isTrue();
        assertThat(Nip04.decrypt(payload, BOB, ALICE.publicKey())).isEqualTo(new Opened.Plaintext(PLAINTEXTS.get(2)));
        assertThat(Nip04.decrypt(payload, new SecretKey("c3".repeat(32)), ALICE.publicKey()))
                .isInstanceOf(Opened.Unreadable.class);
    }

    @Test
    void giftWrap_madeHere_isUnwrappedByNostrToolsNip17_withAFreshKeyAndABackdatedTimeEach() throws Exception {
        GiftWrap wraps = new GiftWrap(ALICE, new SecureRandom());
        long now = Instant.now().getEpochSecond();
        NostrEvent first = wraps.wrap(BOB.publicKey(), "your message failed", List.of(), now,
                GiftWrap.NIP59_MAX_BACKDATE);
        NostrEvent second = wraps.wrap(BOB.publicKey(), "your message failed", List.of(), now,
                GiftWrap.NIP59_MAX_BACKDATE);

        JsonNode answer = NostrToolsClient.crypto(Map.of("op", "unwrap", "secret_key", BOB.hex(), "wraps",
                List.of(JSON.readTree(NostrEventJson.write(first)), JSON.readTree(NostrEventJson.write(second)))));

        assertThat(answer.path("errors")).as(answer.toString()).isEmpty();
        assertThat(answer.path("rumors")).hasSize(2).allSatisfy(rumor -> {
            assertThat(rumor.path("kind").asInt()).isEqualTo(14);
            assertThat(rumor.path("pubkey").asText()).isEqualTo(ALICE.publicKey().hex());
            assertThat(rumor.path("content").asText()).isEqualTo("your message failed");
            assertThat(rumor.path("tags").toString()).isEqualTo("[[\"p\",\"" + BOB.publicKey().hex() + "\"]]");
            assertThat(rumor.path("created_at").asLong()).isEqualTo(now);
        });
        EventSignatures signatures = new Bip340EventSignatures();
        for (NostrEvent wrap : List.of(first, second)) {
            assertThat(signatures.verify(wrap)).isInstanceOf(EventSignatures.Verdict.Valid.class);
            assertThat(wrap.kind()).isEqualTo(1059);
            assertThat(wrap.tags()).containsExactly(List.of("p", BOB.publicKey().hex()));
            assertThat(wrap.pubkey()).isNotEqualTo(ALICE.publicKey());
            assertThat(wrap.createdAt()).isBetween(now - Duration.ofDays(2).toSeconds(), now);
        }
        assertThat(first.pubkey()).isNotEqualTo(second.pubkey());
    }

    @Test
    void giftWrap_madeByNostrToolsNip17_isUnwrappedHere() {
        JsonNode wrap = NostrToolsClient.crypto(Map.of("op", "wrap", "secret_key", ALICE.hex(),
                "peer", BOB.publicKey().hex(), "plaintext", "from nostr-tools")).path("wrap");
        NostrEvent event = ((NostrEventJson.Decoded.Event) NostrEventJson.read(wrap.toString())).event();

        GiftWrap.Unwrapped unwrapped = GiftWrap.unwrap(event, BOB).orElseThrow();

        assertThat(unwrapped.kind()).isEqualTo(14);
        assertThat(unwrapped.content()).isEqualTo("from nostr-tools");
        assertThat(unwrapped.seal().pubkey()).isEqualTo(ALICE.publicKey());
        assertThat(GiftWrap.unwrap(event, new SecretKey("c3".repeat(32)))).isEmpty();
    }
}

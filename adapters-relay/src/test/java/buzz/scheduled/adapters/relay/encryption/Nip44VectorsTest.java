package buzz.scheduled.adapters.relay.encryption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.relay.encryption.Nip44.ConversationKey;
import buzz.scheduled.adapters.relay.encryption.Nip44.Opened;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.PublicKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every NIP-44 v2 vector of paulmillr/nip44 (the copy in {@code vectors/nip44.vectors.json}, whose SHA-256 is the one
 * NIP-44 publishes), valid and invalid sections alike.
 */
class Nip44VectorsTest {
    private static final String NIP44_PUBLISHED_SHA256 =
            "269ed0f69e4c192512cc779e78c555090cebc7c785b609e338a62afc3ce25040";
    private static final JsonNode V2 = load().path("v2");

    private static JsonNode load() {
        try (InputStream in = Nip44VectorsTest.class.getResourceAsStream("/vectors/nip44.vectors.json")) {
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A vector with a readable name for the test report. */
    record Vector(String name, JsonNode node) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Stream<Vector> section(String validity, String name) {
        List<Vector> vectors = new ArrayList<>();
        JsonNode list = V2.path(validity).path(name);
        for (int i = 0; i < list.size(); i++) {
            JsonNode node = list.get(i);
            String note = node.path("note").asText("");
            vectors.add(new Vector(name + "[" + i + "]" + (note.isEmpty() ? "" : " " + note), node));
        }
        return vectors.stream();
    }

    static Stream<Vector> validConversationKeys() {
        return section("valid", "get_conversation_key");
    }

    static Stream<Vector> validPaddedLengths() {
        return section("valid", "calc_padded_len");
    }

    static Stream<Vector> validEncryptDecrypt() {
        return section("valid", "encrypt_decrypt");
    }

    static Stream<Vector> validLongMessages() {
        return section("valid", "encrypt_decrypt_long_msg");
    }

    static Stream<Vector> invalidMessageLengths() {
        return section("invalid", "encrypt_msg_lengths");
    }

    static Stream<Vector> invalidConversationKeys() {
        return section("invalid", "get_conversation_key");
    }

    static Stream<Vector> invalidPayloads() {
        return section("invalid", "decrypt");
    }

    private static ConversationKey key(String hex) {
        return new ConversationKey(Hex.decode(hex));
    }

    @Test
    void vectorFile_checksumAndCounts_areThoseNip44Publishes() throws Exception {
        byte[] file;
        try (InputStream in = Nip44VectorsTest.class.getResourceAsStream("/vectors/nip44.vectors.json")) {
            file = in.readAllBytes();
        }

        assertThat(Hex.encode(MessageDigest.getInstance("SHA-256").digest(file))).isEqualTo(NIP44_PUBLISHED_SHA256);
        assertThat(validConversationKeys()).hasSize(35);
        assertThat(V2.path("valid").path("get_message_keys").path("keys")).hasSize(32);
        assertThat(validPaddedLengths()).hasSize(24);
        assertThat(validEncryptDecrypt()).hasSize(10);
        assertThat(validLongMessages()).hasSize(3);
        assertThat(invalidMessageLengths()).hasSize(4);
        assertThat(invalidConversationKeys()).hasSize(8);
        assertThat(invalidPayloads()).hasSize(12);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validConversationKeys")
    void conversationKey_validVector_isTheVectorsKey(Vector vector) {
        ConversationKey key = Nip44.conversationKey(new SecretKey(vector.node().path("sec1").asText()),
                new PublicKey(vector.node().path("pub2").asText()));

        assertThat(Hex.encode(key.bytes())).isEqualTo(vector.node().path("conversation_key").asText());
    }

    @Test
    void messageKeys_validVectors_areTheVectorsKeys() {
        JsonNode section = V2.path("valid").path("get_message_keys");
        ConversationKey conversation = key(section.path("conversation_key").asText());
        for (JsonNode expected : section.path("keys")) {
            Nip44.MessageKeys keys = Nip44.messageKeys(conversation, Hex.decode(expected.path("nonce").asText()));

            assertThat(Hex.encode(keys.chachaKey())).isEqualTo(expected.path("chacha_key").asText());
            assertThat(Hex.encode(keys.chachaNonce())).isEqualTo(expected.path("chacha_nonce").asText());
            assertThat(Hex.encode(keys.hmacKey())).isEqualTo(expected.path("hmac_key").asText());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validPaddedLengths")
    void paddedLength_validVector_isTheVectorsLength(Vector vector) {
        assertThat(Nip44.paddedLength(vector.node().get(0).asInt())).isEqualTo(vector.node().get(1).asInt());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validEncryptDecrypt")
    void encryptAndDecrypt_validVector_giveThePayloadAndThePlaintext(Vector vector) {
        JsonNode node = vector.node();
        SecretKey sec1 = new SecretKey(node.path("sec1").asText());
        SecretKey sec2 = new SecretKey(node.path("sec2").asText());
        ConversationKey fromOne = Nip44.conversationKey(sec1, sec2.publicKey());
        ConversationKey fromTwo = Nip44.conversationKey(sec2, sec1.publicKey());
        String plaintext = node.path("plaintext").asText();

        assertThat(Hex.encode(fromOne.bytes())).isEqualTo(node.path("conversation_key").asText());
        assertThat(fromTwo).isEqualTo(fromOne);
        assertThat(Nip44.encrypt(plaintext, fromOne, Hex.decode(node.path("nonce").asText())))
                .isEqualTo(node.path("payload").asText());
        assertThat(Nip44.decrypt(node.path("payload").asText(), fromTwo)).isEqualTo(new Opened.Plaintext(plaintext));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validLongMessages")
    void encryptAndDecrypt_longMessageVector_matchesTheHashes(Vector vector) throws NoSuchAlgorithmException {
        JsonNode node = vector.node();
        String plaintext = node.path("pattern").asText().repeat(node.path("repeat").asInt());
        ConversationKey key = key(node.path("conversation_key").asText());

        String payload = Nip44.encrypt(plaintext, key, Hex.decode(node.path("nonce").asText()));

        assertThat(sha256(plaintext)).isEqualTo(node.path("plaintext_sha256").asText());
        assertThat(sha256(payload)).isEqualTo(node.path("payload_sha256").asText());
        assertThat(Nip44.decrypt(payload, key)).isEqualTo(new Opened.Plaintext(plaintext));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidMessageLengths")
    void encrypt_invalidMessageLength_isRefused(Vector vector) {
        int length = vector.node().asInt();
        ConversationKey key = key("0".repeat(63) + "1");

        assertThatThrownBy(() -> Nip44.encrypt("a".repeat(length), key, new SecureRandom()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 65535 UTF-8 bytes");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidConversationKeys")
    void conversationKey_invalidVector_isRefused(Vector vector) {
        String sec1 = vector.node().path("sec1").asText();
        PublicKey pub2 = new PublicKey(vector.node().path("pub2").asText());

        assertThatThrownBy(() -> Nip44.conversationKey(new SecretKey(sec1), pub2))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidPayloads")
    void decrypt_invalidVector_isUnreadableForTheNotesReason(Vector vector) {
        JsonNode node = vector.node();
        String note = node.path("note").asText();

        Opened opened = Nip44.decrypt(node.path("payload").asText(), key(node.path("conversation_key").asText()));

        assertThat(opened).isInstanceOfSatisfying(Opened.Unreadable.class, unreadable -> {
            String expected = note.startsWith("invalid payload length") ? "invalid payload length"
                    : note.startsWith("unknown encryption version") ? "unknown encryption version" : note;
            assertThat(unreadable.reason()).startsWith(expected);
        });
    }

    @Test
    void encrypt_freshNonces_giveDifferentPayloadsThatBothDecrypt() {
        ConversationKey key = Nip44.conversationKey(new SecretKey("0".repeat(63) + "1"),
                new SecretKey("0".repeat(63) + "2").publicKey());
        SecureRandom random = new SecureRandom();

        String first = Nip44.encrypt("the same words", key, random);
        String second = Nip44.encrypt("the same words", key, random);

        assertThat(first).isNotEqualTo(second);
        assertThat(java.util.Base64.getDecoder().decode(first)[0]).isEqualTo((byte) Nip44.VERSION);
        assertThat(List.of(Nip44.decrypt(first, key), Nip44.decrypt(second, key)))
                .containsOnly(new Opened.Plaintext("the same words"));
    }

    @Test
    void decrypt_anotherConversationsKey_isAnInvalidMac() {
        ConversationKey key = key("0".repeat(63) + "1");
        String payload = Nip44.encrypt("for someone else", key, new SecureRandom());

        assertThat(Nip44.decrypt(payload, key("0".repeat(63) + "2"))).isEqualTo(new Opened.Unreadable("invalid MAC"));
    }

    @Test
    void conversationKey_toString_neverShowsTheKey() {
        ConversationKey key = key("ab".repeat(32));

        assertThat(key.toString()).doesNotContain("ab").contains("redacted");
    }

    private static String sha256(String text) throws NoSuchAlgorithmException {
        return Hex.encode(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}

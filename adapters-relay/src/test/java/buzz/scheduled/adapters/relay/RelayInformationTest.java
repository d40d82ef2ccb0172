package buzz.scheduled.adapters.relay;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.RelayLimits.Limitation;
import buzz.scheduled.domain.nostr.PublicKey;
import java.net.URI;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Reading a NIP-11 document's {@code self}, {@code pubkey} and {@code limitation}. */
class RelayInformationTest {
    private static final URI URL = URI.create("http://relay.example/");
    private static final String SELF = "b9".repeat(32);
    private static final String CONTACT = "cc".repeat(32);

    private static RelayInformation read(String body) {
        RelayInformation.Answer answer = RelayInformation.parse(URL, body);
        assertThat(answer).isInstanceOf(RelayInformation.Answer.Read.class);
        return ((RelayInformation.Answer.Read) answer).information();
    }

    @Test
    void parse_strfryStyleDocument_readsBothKeysAndEveryLimitationField() {
        RelayInformation information = read("{\"name\":\"r\",\"self\":\"" + SELF + "\",\"pubkey\":\"" + CONTACT
                + "\",\"limitation\":{\"max_message_length\":131072,\"max_content_length\":8196,\"max_limit\":500,"
                + "\"max_subscriptions\":20,\"created_at_lower_limit\":94608000,\"created_at_upper_limit\":900,"
                + "\"max_event_tags\":2000,\"min_pow_difficulty\":16,\"auth_required\":true,"
                + "\"restricted_writes\":true}}");

        assertThat(information.self()).contains(new PublicKey(SELF));
        assertThat(information.pubkey()).contains(new PublicKey(CONTACT));
        assertThat(information.limitation()).isEqualTo(new Limitation(OptionalInt.of(131072), OptionalInt.of(8196),
                OptionalInt.of(500), OptionalLong.of(94608000), OptionalLong.of(900), OptionalInt.of(2000),
                OptionalInt.of(16), true, true));
    }

    @Test
    void parse_zeroLimits_areNoLimits_asRelaysPublishThemForUnset() {
        RelayInformation information = read("{\"limitation\":{\"max_message_length\":0,\"max_content_length\":0,"
                + "\"max_limit\":0,\"created_at_lower_limit\":0,\"created_at_upper_limit\":0,\"max_event_tags\":0,"
                + "\"min_pow_difficulty\":0,\"auth_required\":false,\"restricted_writes\":false}}");

        assertThat(information.limitation()).isEqualTo(Limitation.NONE);
    }

    @Test
    void parse_noLimitationAndNoSelf_knowsNothingOfThem() {
        RelayInformation information = read("{\"pubkey\":\"" + CONTACT + "\"}");

        assertThat(information.self()).isEmpty();
        assertThat(information.limitation()).isEqualTo(Limitation.NONE);
    }

    @Test
    void parse_malformedFields_areLeftEmpty() {
        RelayInformation information = read("{\"self\":\"" + SELF.toUpperCase() + "\",\"pubkey\":42,\"limitation\":{"
                + "\"max_message_length\":\"131072\",\"max_content_length\":-1,\"max_limit\":1.5,"
                + "\"created_at_lower_limit\":null,\"created_at_upper_limit\":99999999999,\"auth_required\":\"yes\","
                + "\"max_event_tags\":\"20\"}}");

        assertThat(information.self()).isEmpty();
        assertThat(information.pubkey()).isEmpty();
        assertThat(information.limitation()).isEqualTo(new Limitation(OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.empty(), OptionalLong.empty(), OptionalLong.of(99999999999L)));
    }

    @Test
    void parse_notAnObject_isUnreadableNamingTheUrl() {
        assertThat(RelayInformation.parse(URL, "[1,2]")).isEqualTo(new RelayInformation.Answer.Unreadable(
                "the relay's NIP-11 document at http://relay.example/ is not a JSON object"));
        assertThat(RelayInformation.parse(URL, "<html>")).isInstanceOf(RelayInformation.Answer.Unreadable.class);
    }

    @Test
    void documentUrl_wsAndWss_becomeHttpAndHttpsWithTheSamePath() {
        assertThat(RelayInformation.documentUrl(URI.create("ws://127.0.0.1:7777"))).isEqualTo(
                URI.create("http://127.0.0.1:7777/"));
        assertThat(RelayInformation.documentUrl(URI.create("wss://relay.example/nostr"))).isEqualTo(
                URI.create("https://relay.example/nostr"));
    }
}

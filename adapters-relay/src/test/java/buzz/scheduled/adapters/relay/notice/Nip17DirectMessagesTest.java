package buzz.scheduled.adapters.relay.notice;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelayExchange;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.encryption.GiftWrap;
import buzz.scheduled.adapters.relay.signature.Bip340EventSignatures;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.RelayLimits;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where notices may go: an owner's inbox relay must be a {@code ws}/{@code wss} URL on a public address, unless it is
 * the sidecar's own relay or private addresses are allowed; and how far back the wraps are dated.
 */
class Nip17DirectMessagesTest {
    private static final URI SIDECAR_RELAY = URI.create("ws://127.0.0.1:7777");
    private final RelayExchange exchange = RelayExchange.create(Optional.empty(), Instant::now);
    private final RelayClient client = new RelayClient(RelaySettings.of(SIDECAR_RELAY), (u, c, t) -> {
        throw new IllegalStateException("not connected in this test");
    }, Instant::now);

    @AfterEach
    void close() {
        exchange.close();
        client.close();
    }

    private Nip17DirectMessages messages(boolean privateAllowed, RelayLimits limits) {
        return new Nip17DirectMessages(new GiftWrap(new SecretKey("5c".repeat(32)), new SecureRandom()),
                RelaySettings.of(SIDECAR_RELAY).withAuthUrl(URI.create("wss://relay.example.com")), client, limits,
                exchange, new Bip340EventSignatures(), Instant::now, privateAllowed, Duration.ofSeconds(1));
    }

    @Test
    void usable_privateAndOddAddresses_areRefusedUnlessAllowed_theSidecarsRelayAlwaysAccepted() {
        Nip17DirectMessages strict = messages(false, RelayLimits.UNKNOWN);
        Nip17DirectMessages open = messages(true, RelayLimits.UNKNOWN);

        for (String refused : new String[] {"ws://127.0.0.1:9000", "ws://localhost:9000", "wss://10.1.2.3",
                "wss://192.168.0.10/x", "ws://[::1]:80", "wss://169.254.169.254", "ws://0.0.0.0"}) {
            assertThat(strict.usable(refused)).as(refused).isEmpty();
            assertThat(open.usable(refused)).as(refused).isPresent();
        }
        for (String malformed : new String[] {"https://relay.example.com", "relay.example.com", "ws://user@8.8.8.8",
                "wss://", "not a url at all"}) {
            assertThat(open.usable(malformed)).as(malformed).isEmpty();
        }
        assertThat(strict.usable("ws://127.0.0.1:7777/")).as("the sidecar's own relay").isPresent();
        assertThat(strict.usable("WSS://Relay.Example.com:443")).as("its public name, as AUTH names it").isPresent();
        assertThat(strict.usable("wss://8.8.8.8")).as("a public address").isPresent();
    }

    @Test
    void backdate_isTwoDaysOrLessThanTheRelaysLowerLimit() {
        RelayLimits oneHour = () -> new RelayLimits.Limitation(OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.empty(), OptionalLong.of(3600), OptionalLong.empty());
        RelayLimits threeDays = () -> new RelayLimits.Limitation(OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.empty(), OptionalLong.of(3 * 86_400), OptionalLong.empty());

        assertThat(messages(false, RelayLimits.UNKNOWN).backdate()).isEqualTo(Duration.ofDays(2));
        assertThat(messages(false, oneHour).backdate()).isEqualTo(Duration.ofMinutes(55));
        assertThat(messages(false, threeDays).backdate()).isEqualTo(Duration.ofDays(2));
    }
}

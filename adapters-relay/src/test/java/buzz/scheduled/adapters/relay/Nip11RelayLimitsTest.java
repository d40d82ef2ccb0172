package buzz.scheduled.adapters.relay;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.RelayLimits.Limitation;
import buzz.scheduled.application.testing.Poll;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The relay's NIP-11 limitation read from the real test relay (limitation mode), at start and on the timer. */
class Nip11RelayLimitsTest {
    private static final String LIMITATION = "{\"max_message_length\":2048,\"max_content_length\":512,"
            + "\"max_limit\":300,\"created_at_lower_limit\":600,\"created_at_upper_limit\":60,"
            + "\"max_event_tags\":20,\"min_pow_difficulty\":8,\"auth_required\":true}";
    private static final Limitation EXPECTED = new Limitation(OptionalInt.of(2048), OptionalInt.of(512),
            OptionalInt.of(300), OptionalLong.of(600), OptionalLong.of(60), OptionalInt.of(20), OptionalInt.of(8),
            true, false);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private TestRelay relay;
    private Nip11RelayLimits limits;

    @AfterEach
    void stop() {
        if (limits != null) {
            limits.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    private static TestRelay limitedRelay() {
        return TestRelay.builder().plugin("plugins/limitation.js").env("TEST_RELAY_LIMITATION", LIMITATION).start();
    }

    private Nip11RelayLimits limitsOf(Duration refresh) {
        return new Nip11RelayLimits(new RelaySettings(relay.url(), Duration.ofSeconds(2), Duration.ofMillis(50),
                Duration.ofMillis(500)), refresh);
    }

    @Test
    void start_relayStatingALimitation_knowsItBeforeStartReturns() {
        relay = limitedRelay();
        limits = limitsOf(Duration.ofMinutes(5));

        limits.start();

        assertThat(limits.current()).isEqualTo(EXPECTED);
    }

    @Test
    void describe_everyStatedField_isNamedForTheLogLine() {
        assertThat(Nip11RelayLimits.describe(EXPECTED)).isEqualTo("max_message_length=2048, max_content_length=512,"
                + " max_limit=300, created_at_lower_limit=600, created_at_upper_limit=60, max_event_tags=20,"
                + " min_pow_difficulty=8, auth_required");
        assertThat(Nip11RelayLimits.describe(Limitation.NONE)).isEqualTo("none stated");
    }

    @Test
    void start_relayWithoutLimitation_knowsNone() {
        relay = TestRelay.start();
        limits = limitsOf(Duration.ofMinutes(5));

        limits.start();

        assertThat(limits.current()).isEqualTo(Limitation.NONE);
    }

    @Test
    void timer_relayDownAtStartAndUpLater_readsTheLimitationOnceItAnswers() throws InterruptedException {
        relay = limitedRelay();
        relay.stop();
        limits = limitsOf(Duration.ofMillis(200));

        limits.start();
        Limitation whileDown = limits.current();
        relay.restart();

        Poll.until("the limitation once the relay answers", WAIT, () -> limits.current().equals(EXPECTED));
        assertThat(whileDown).isEqualTo(Limitation.NONE);
        assertThat(limits.current()).isEqualTo(EXPECTED);
    }

    @Test
    void refresh_relayGoneAfterARead_keepsTheLastKnownLimitation() {
        relay = limitedRelay();
        limits = limitsOf(Duration.ofMinutes(5));
        limits.start();

        relay.stop();
        Limitation afterFailedRead = limits.refresh();

        assertThat(afterFailedRead).isEqualTo(EXPECTED);
        assertThat(limits.current()).isEqualTo(EXPECTED);
    }
}

package buzz.scheduled.adapters.relay;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The real relay goes away for a while and comes back on the same port. */
class RelayClientRestartTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void publish_relayStoppedThenRestarted_notSentWhileDownThenReconnectsAndPublishes() {
        NostrEvent before = TestSigners.message(TestSigners.ALICE, "channel-1");
        NostrEvent during = TestSigners.message(TestSigners.ALICE, "channel-1");
        try (TestRelay relay = TestRelay.start();
             RelayClient client = new RelayClient(
                     new RelaySettings(relay.url(), Duration.ofSeconds(2), Duration.ofMillis(20), Duration.ofMillis(250)),
                     (url, challenge, createdAt) -> {
                         throw new AssertionError("this relay does not ask for AUTH");
                     },
                     Instant::now)) {
            assertThat(client.publish(before, TIMEOUT)).isEqualTo(new PublishResult.Published(false, ""));
            int port = relay.port();

            relay.stop();
            Poll.until("the client to notice the relay is gone", TIMEOUT, () -> client.counts().drops() >= 1);
            PublishResult whileDown = client.publish(during, Duration.ofSeconds(2));
            relay.restart();
            PublishResult afterRestart = client.publish(during, TIMEOUT);
            PublishResult beforeAgain = client.publish(before, TIMEOUT);

            assertThat(whileDown).isInstanceOf(PublishResult.NotSent.class);
            assertThat(relay.port()).isEqualTo(port);
            assertThat(afterRestart).isEqualTo(new PublishResult.Published(false, ""));
            assertThat(beforeAgain).isInstanceOfSatisfying(PublishResult.Published.class,
                    published -> assertThat(published.duplicate()).isTrue());
            assertThat(relay.event(during.id().hex())).contains(NostrEventJson.write(during));
        }
    }
}

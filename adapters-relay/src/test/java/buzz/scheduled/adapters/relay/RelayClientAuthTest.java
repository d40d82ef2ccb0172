package buzz.scheduled.adapters.relay;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** NIP-42 against the real Node test relay started with AUTH required. */
class RelayClientAuthTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private TestRelay relay;
    private final List<NostrEvent> authEvents = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startRelay() {
        relay = TestRelay.builder().auth(true).start();
    }

    @AfterEach
    void stopRelay() {
        relay.close();
    }

    private RelayClient client(AuthEventSigner signer) {
        AuthEventSigner recording = (url, challenge, createdAt) -> {
            NostrEvent auth = signer.signAuth(url, challenge, createdAt);
            authEvents.add(auth);
            return auth;
        };
        return new RelayClient(
                new RelaySettings(relay.url(), Duration.ofSeconds(5), Duration.ofMillis(20), Duration.ofMillis(250)),
                recording, Instant::now);
    }

    @Test
    void publish_relayRequiresAuth_authenticatesWithTheSidecarKeyThenPublishes() {
        NostrEvent event = TestSigners.message(TestSigners.ALICE, "channel-1");

        PublishResult result;
        try (RelayClient client = client(AuthEventSigner.with(TestSigners.SIDECAR))) {
            result = client.publish(event, TIMEOUT);
        }

        assertThat(result).isEqualTo(new PublishResult.Published(false, ""));
        assertThat(authEvents).singleElement().satisfies(auth -> {
            assertThat(auth.kind()).isEqualTo(22242);
            assertThat(auth.pubkey()).isEqualTo(TestSigners.SIDECAR.publicKey());
            assertThat(auth.firstTagValue("relay")).contains(relay.url().toString());
            assertThat(auth.firstTagValue("challenge")).hasValueSatisfying(c -> assertThat(c).isNotBlank());
        });
        assertThat(relay.event(event.id().hex())).contains(NostrEventJson.write(event));
    }

    @Test
    void publish_afterAuthOnThisConnection_publishesWithoutAnotherAuth() {
        try (RelayClient client = client(AuthEventSigner.with(TestSigners.SIDECAR))) {
            client.publish(TestSigners.message(TestSigners.ALICE, "channel-1"), TIMEOUT);

            PublishResult second = client.publish(TestSigners.message(TestSigners.BOB, "channel-1"), TIMEOUT);

            assertThat(second).isEqualTo(new PublishResult.Published(false, ""));
            assertThat(authEvents).hasSize(1);
        }
    }

    @Test
    void publish_authForTheWrongChallenge_isTransientAndNothingIsStored() {
        AuthEventSigner sidecar = AuthEventSigner.with(TestSigners.SIDECAR);
        NostrEvent event = TestSigners.message(TestSigners.ALICE, "channel-1");

        PublishResult result;
        try (RelayClient client = client((url, challenge, createdAt) -> sidecar.signAuth(url, "not-" + challenge, createdAt))) {
            result = client.publish(event, TIMEOUT);
        }

        assertThat(result).isEqualTo(new PublishResult.Transient(
                "auth-required: the relay refused our AUTH (invalid: the challenge string is wrong)"));
        assertThat(relay.event(event.id().hex())).isEmpty();
    }
}

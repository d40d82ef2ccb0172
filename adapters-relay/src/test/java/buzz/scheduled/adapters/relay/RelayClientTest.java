package buzz.scheduled.adapters.relay;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** The relay client against the project's real Node test relay (a fresh one per test). */
class RelayClientTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private TestRelay relay;
    private RelayClient client;

    @BeforeEach
    void connect() {
        relay = TestRelay.start();
        client = new RelayClient(
                new RelaySettings(relay.url(), Duration.ofSeconds(5), Duration.ofMillis(20), Duration.ofMillis(250)),
                (url, challenge, createdAt) -> {
                    throw new AssertionError("this relay does not ask for AUTH");
                },
                Instant::now);
    }

    @AfterEach
    void disconnect() {
        client.close();
        relay.close();
    }

    @Test
    void publish_newEvent_isPublishedAndStored() {
        NostrEvent event = VectorEvents.named("valid_kind9_group_chat_h_tag");

        PublishResult result = client.publish(event, TIMEOUT);

        assertThat(result).isEqualTo(new PublishResult.Published(false, ""));
        assertThat(relay.event(event.id().hex())).isPresent();
    }

    @Test
    void publish_sameEventAgain_isPublishedDuplicate() {
        NostrEvent event = VectorEvents.named("valid_kind_40002");
        client.publish(event, TIMEOUT);

        PublishResult again = client.publish(event, TIMEOUT);

        assertThat(again).isInstanceOfSatisfying(PublishResult.Published.class, published -> {
            assertThat(published.duplicate()).isTrue();
            assertThat(published.message()).startsWith("duplicate:");
        });
    }

    @Test
    void publish_everyValidVector_readsBackByteIdentical() throws Exception {
        for (Map.Entry<String, NostrEvent> vector : VectorEvents.valid().entrySet()) {
            NostrEvent event = vector.getValue();
            if (event.kind() == 22242) {
                continue; // NIP-42 events are answered but never stored
            }

            PublishResult result = client.publish(event, TIMEOUT);
            String stored = relay.event(event.id().hex()).orElseThrow(
                    () -> new AssertionError(vector.getKey() + " was not stored; relay output:\n" + relay.output()));

            assertThat(result).as(vector.getKey()).isInstanceOf(PublishResult.Published.class);
            assertThat(stored).as(vector.getKey()).isEqualTo(NostrEventJson.write(event));
            assertThat(JSON.readTree(stored).get("sig").asText()).as(vector.getKey()).isEqualTo(event.sig().hex());
        }
    }

    @Test
    void publish_alteredContent_isRejectedInvalid() {
        NostrEvent signed = VectorEvents.named("valid_cjk");
        NostrEvent altered = new NostrEvent(signed.id(), signed.pubkey(), signed.createdAt(), signed.kind(),
                signed.tags(), signed.content() + "!", signed.sig());

        PublishResult result = client.publish(altered, TIMEOUT);

        assertThat(result).isEqualTo(new PublishResult.Rejected("invalid", "id is wrong"));
        assertThat(relay.event(signed.id().hex())).isEmpty();
    }

    @Test
    void publish_authorTheRelayRestricts_isRejectedRestrictedAndOthersPass() {
        NostrEvent fromBob = TestSigners.message(TestSigners.BOB, "closed-channel");
        NostrEvent fromAlice = TestSigners.message(TestSigners.ALICE, "closed-channel");
        try (TestRelay restricting = TestRelay.builder()
                .plugin("plugins/restricted-pubkeys.js")
                .env("TEST_RELAY_RESTRICTED_PUBKEYS", TestSigners.BOB.publicKey().hex())
                .start();
             RelayClient other = new RelayClient(RelaySettings.of(restricting.url()),
                     AuthEventSigner.with(TestSigners.SIDECAR), Instant::now)) {

            assertThat(other.publish(fromBob, TIMEOUT))
                    .isEqualTo(new PublishResult.Rejected("restricted", "not a member of this channel"));
            assertThat(other.publish(fromAlice, TIMEOUT)).isEqualTo(new PublishResult.Published(false, ""));
            assertThat(restricting.event(fromBob.id().hex())).isEmpty();
        }
    }

    @Test
    void publish_severalAtOnce_allPublishedOverOneConnection() throws Exception {
        List<NostrEvent> events = VectorEvents.valid().values().stream().filter(e -> e.kind() != 22242).toList();
        List<Future<PublishResult>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(events.size())) {
            for (NostrEvent event : events) {
                results.add(pool.submit(() -> client.publish(event, TIMEOUT)));
            }
            for (Future<PublishResult> result : results) {
                assertThat(result.get()).isInstanceOf(PublishResult.Published.class);
            }
        }
        assertThat(relay.events("{}")).hasSize(events.size());
    }
}

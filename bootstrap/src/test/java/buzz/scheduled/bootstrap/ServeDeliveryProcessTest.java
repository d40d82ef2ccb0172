package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The main job end to end, as deployed: {@code serve} in its own JVM on the embedded database, the real Node test
 * relay, and a client that schedules over HTTP with BIP-340 events and NIP-98. The event must reach the relay at
 * or after its due time, within a second of it, and read back byte for byte as signed.
 */
class ServeDeliveryProcessTest {

    private static final Duration LATENESS_LIMIT = Duration.ofSeconds(1);

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void serve_messageScheduledOverHttp_reachesTheRealRelayWithinASecondOfDueAndByteIdentical() throws Exception {
        int httpPort = ServeProcesses.freePort();
        try (TestRelay relay = TestRelay.start()) {
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(httpPort), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "RELAY_URL", relay.url().toString()), work.resolve("serve.log"));
            ServeProcesses.awaitHealthy(serve, httpPort, work.resolve("serve.log"));
            OwnerClient owner = new OwnerClient(httpPort);
            NostrEvent event = owner.message("general", "scheduled end to end \u2028 with \"quotes\" and \u00e9",
                    Duration.ofSeconds(5));
            Instant due = Instant.ofEpochSecond(event.createdAt());

            try (LiveEvents live = LiveEvents.subscribe(relay.url(), "{\"ids\":[\"" + event.id().hex() + "\"]}")) {
                OwnerClient.Reply created = owner.schedule(event);
                assertThat(created.status()).as(created.text()).isEqualTo(201);

                List<LiveEvents.Arrival> arrivals = live.await(1, Duration.ofSeconds(30));

                Instant arrivedAt = arrivals.get(0).at();
                assertThat(arrivedAt).as("never before the due time").isAfterOrEqualTo(due);
                assertThat(Duration.between(due, arrivedAt)).as("published within a second of the due time")
                        .isLessThanOrEqualTo(LATENESS_LIMIT);
                Optional<String> stored = relay.event(event.id().hex());
                assertThat(stored).isPresent();
                NostrEvent readBack = ((NostrEventJson.Decoded.Event) NostrEventJson.read(stored.get())).event();
                assertThat(readBack).isEqualTo(event);
                assertThat(readBack.canonicalSerialization()).isEqualTo(event.canonicalSerialization());
                assertThat(NostrEventJson.write(readBack)).isEqualTo(NostrEventJson.write(event));
                String id = created.json().get("id").asText();
                awaitState(owner, id, "published");
                assertThat(metrics(httpPort))
                        .contains("buzz_delivery_outcomes_total{outcome=\"published\",relay=\"ok\"} 1.0\n")
                        .contains("buzz_relay_events_sent_total 1.0\n")
                        .contains("buzz_delivery_lateness_seconds_count 1\n");
            }
        }
    }

    private static String metrics(int port) throws Exception {
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
            return http.send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    private static void awaitState(OwnerClient owner, String id, String state) {
        Poll.until("message " + id + " to be " + state, Duration.ofSeconds(10), () -> owner.get(id),
                reply -> reply.json().get("state").asText().equals(state));
    }
}

package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole sidecar as wired by bootstrap: a message scheduled over HTTP (real BIP-340, NIP-98) is published by
 * the dispatcher to the real Node test relay at its due time and recorded {@code published}.
 */
class DeliveryEndToEndTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    @TempDir
    Path dataDir;

    @Test
    void scheduledMessage_realRelay_isPublishedAtItsDueTimeAndMarkedPublished() throws Exception {
        int port = freePort();
        try (TestRelay relay = TestRelay.start(); Sidecar sidecar = new Sidecar()) {
            sidecar.start(SidecarConfig.fromEnvironment(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                    "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(port),
                    "BUZZ_SCHEDULED_MESSAGES", "on", "RELAY_URL", relay.url().toString())));
            OwnerClient owner = new OwnerClient(port);
            NostrEvent event = owner.message("general", "published by the sidecar", Duration.ofSeconds(4));
            Instant due = Instant.ofEpochSecond(event.createdAt());

            OwnerClient.Reply created = owner.schedule(event);
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            String id = created.json().get("id").asText();
            Optional<String> early = relay.event(event.id().hex());
            if (Instant.now().isBefore(due)) {
                assertThat(early).as("nothing reaches the relay before the due time").isEmpty();
            }

            String published = awaitState(owner, id, "published", Duration.ofSeconds(30));
            assertThat(relay.event(event.id().hex())).hasValueSatisfying(json ->
                    assertThat(json).contains(event.sig().hex()).contains("published by the sidecar"));
            assertThat(published).contains("\"published_at\"");
            OwnerClient.Reply item = owner.get(id);
            assertThat(item.json().get("published_at").asLong()).isGreaterThanOrEqualTo(event.createdAt());
        }
    }

    private static String awaitState(OwnerClient owner, String id, String state, Duration limit) {
        return Poll.until("message " + id + " to reach " + state, limit, () -> owner.get(id),
                reply -> reply.status() == 200 && state.equals(reply.json().get("state").asText())).text();
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}

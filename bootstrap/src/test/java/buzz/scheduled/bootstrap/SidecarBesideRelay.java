package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * An in-process {@code serve} with the scheduled messages on, beside a test relay in some mode, on a scratch
 * database, with an owner to talk to it; closing it stops both. For the tests of what a relay's dialect does to
 * admission and delivery.
 *
 * <pre>{@code
 * static SidecarBesideRelay stack = SidecarBesideRelay.start(TestRelay.builder()..., DATABASE.jdbcUrl(), dataDir, Map.of());
 * OwnerClient.Reply reply = stack.owner().schedule(...);
 * }</pre>
 */
final class SidecarBesideRelay implements AutoCloseable {
    private final TestRelay relay;
    private final Sidecar sidecar;
    private final OwnerClient owner;

    private SidecarBesideRelay(TestRelay relay, Sidecar sidecar, OwnerClient owner) {
        this.relay = relay;
        this.sidecar = sidecar;
        this.owner = owner;
    }

    /**
     * Starts the relay, then a sidecar on {@code jdbcUrl} delivering to it.
     *
     * @param settings more environment for the sidecar (it wins over the defaults here)
     */
    static SidecarBesideRelay start(TestRelay.Builder relayBuilder, String jdbcUrl, Path dataDir,
                                    Map<String, String> settings) throws IOException {
        int port = ServeProcesses.freePort();
        TestRelay relay = relayBuilder.start();
        Sidecar sidecar = new Sidecar();
        try {
            Map<String, String> environment = new HashMap<>(Map.of("DATABASE_URL", jdbcUrl,
                    "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(port),
                    "BUZZ_SCHEDULED_MESSAGES", "on", "RELAY_URL", relay.url().toString()));
            environment.putAll(settings);
            sidecar.start(SidecarConfig.fromEnvironment(environment));
        } catch (IOException | RuntimeException e) {
            sidecar.close();
            relay.close();
            throw e;
        }
        return new SidecarBesideRelay(relay, sidecar, new OwnerClient(port));
    }

    TestRelay relay() {
        return relay;
    }

    Sidecar sidecar() {
        return sidecar;
    }

    OwnerClient owner() {
        return owner;
    }

    /** Waits (up to {@code within}) until the owner sees message {@code id} {@code published}. */
    void awaitPublished(String id, Duration within) {
        Poll.until("message " + id + " to be published", within, () -> {
            try {
                return "published".equals(owner.get(id).json().get("state").asText());
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    @Override
    public void close() {
        sidecar.close();
        relay.close();
    }
}

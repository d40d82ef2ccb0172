package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.signature.SecretKeyFile;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.cli.ClientCommands;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.domain.nostr.NostrEvent;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A series end to end: created as one batch over HTTP (real BIP-340, NIP-98, PostgreSQL), cancelled with the client
 * command {@code cancel --series} before its occurrences are due, and then never published — the real Node relay never
 * reads one of its events — while a message of the same owner due after all of them is published on time, so the
 * dispatcher was delivering throughout.
 */
class SeriesCancelEndToEndTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.empty();

    /** Room to create the series and cancel it before its first occurrence is due, on a loaded machine. */
    private static final Duration LEAD = Duration.ofSeconds(30);

    @TempDir
    Path dataDir;

    @Test
    void seriesCancelledByTheCliBeforeItIsDue_isNeverPublished_whileALaterMessageIs() throws Exception {
        int port = freePort();
        SecretKey key = SecretKey.generate(new SecureRandom());
        Path keyFile = dataDir.resolve("author.key");
        SecretKeyFile.write(keyFile, key);
        try (TestRelay relay = TestRelay.builder().logReceived().start(); Sidecar sidecar = new Sidecar()) {
            sidecar.start(SidecarConfig.fromEnvironment(Map.of("DATABASE_URL", DATABASE.jdbcUrl(),
                    "BUZZ_DATA_DIR", dataDir.toString(), "HTTP_PORT", Integer.toString(port),
                    "BUZZ_SCHEDULED_MESSAGES", "on", "RELAY_URL", relay.url().toString())));
            OwnerClient owner = new OwnerClient(port, key);
            long first = Instant.now().plus(LEAD).getEpochSecond();
            List<NostrEvent> occurrences = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                occurrences.add(owner.messageAt("standup", "stand-up " + i, first + i));
            }
            OwnerClient.Reply batch = owner.scheduleBatch(occurrences, true);
            assertThat(batch.status()).as(batch.text()).isEqualTo(200);
            String series = batch.json().get("series_id").asText();
            List<String> ids = new ArrayList<>();
            batch.json().get("results").forEach(result -> {
                assertThat(result.get("status").asInt()).as(result.toString()).isEqualTo(201);
                ids.add(result.get("item").get("id").asText());
            });
            NostrEvent control = owner.messageAt("standup", "after the series", first + 4);
            String controlId = owner.schedule(control).json().get("id").asText();

            Cli cancelled = cli(port, keyFile, "cancel", "--series", series);
            Instant cancelledAt = Instant.now();
            Cli listed = cli(port, keyFile, "list", "--series", series);

            assertThat(cancelled.code()).as(cancelled.err()).isEqualTo(ClientCommands.EXIT_OK);
            assertThat(cancelled.out()).isEqualTo("cancelled 3 pending messages\n");
            assertThat(cancelledAt).as("cancelled before the first occurrence was due")
                    .isBefore(Instant.ofEpochSecond(first));
            assertThat(listed.out()).startsWith("no pending messages (scheduled, claimed, sending); list --all shows"
                    + " every state\nseries " + series + ": 0 of 3 pending");
            Poll.until("the message due after the series to be published", LEAD.plusSeconds(60),
                    () -> owner.get(controlId), reply -> "published".equals(reply.json().get("state").asText()));
            Set<String> received = relay.receivedEvents().stream().map(TestRelay.ReceivedEvent::id)
                    .collect(Collectors.toSet());
            assertThat(received).contains(control.id().hex());
            assertThat(received).as("no occurrence of the cancelled series ever reached the relay")
                    .doesNotContainAnyElementsOf(occurrences.stream().map(e -> e.id().hex()).toList());
            for (String id : ids) {
                JsonNode item = owner.get(id).json();
                assertThat(item.get("state").asText()).isEqualTo("cancelled");
                assertThat(item.has("event")).as("its event was deleted").isFalse();
            }
        }
    }

    /** A client command's exit code and output. */
    private record Cli(int code, String out, String err) {
    }

    private static Cli cli(int port, Path keyFile, String command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ClientCommands(Map.of(ClientCommands.BUZZ_URL, "http://127.0.0.1:" + port,
                ClientCommands.BUZZ_AUTHOR_KEY_FILE, keyFile.toString()), new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                InstantSource.system()).run(command, List.of(args));
        return new Cli(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}

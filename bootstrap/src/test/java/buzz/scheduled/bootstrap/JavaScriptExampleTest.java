package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/js/schedule-and-watch.mjs} — a client on nostr-tools' own {@code finalizeEvent} and
 * {@code nip98.getToken} — against {@code serve} and the real Node test relay: it must exit 0, and the relay must hold
 * the edited event exactly as the script reported it, and neither the superseded revision nor the cancelled message.
 * Its npm packages are installed by {@code .ci/run}; when they are missing, {@code npm ci} runs here first.
 */
class JavaScriptExampleTest {

    private static final Path EXAMPLE = Path.of("..", "examples", "js").toAbsolutePath().normalize();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void example_againstServeAndTheRealRelay_schedulesEditsSeesTheEditedEventPublishedAndCancels() throws Exception {
        installPackages();
        SecretKey author = SecretKey.generate(new SecureRandom());
        try (TestRelay relay = TestRelay.start()) {
            int httpPort = processes.startServing(work, relay.url());

            Path output = work.resolve("node.out");
            ProcessBuilder builder = new ProcessBuilder("node", "schedule-and-watch.mjs").directory(EXAMPLE.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().putAll(Map.of("BUZZ_URL", "http://127.0.0.1:" + httpPort,
                    "RELAY_URL", relay.url().toString(), "BUZZ_AUTHOR_SECRET", author.hex(),
                    "BUZZ_CHANNEL", "general", "BUZZ_DUE_IN_SECONDS", "4"));
            Process node = builder.start();
            node.getOutputStream().close();
            boolean exited = node.waitFor(120, TimeUnit.SECONDS);
            if (!exited) {
                node.destroyForcibly();
            }
            String printed = Files.readString(output);
            System.out.print(printed);
            assertThat(exited).as("the example finished within 120 s:\n" + printed).isTrue();
            assertThat(node.exitValue()).as(printed).isZero();

            List<String> lines = printed.lines().toList();
            JsonNode summary = JSON.readTree(lines.getLast());
            JsonNode published = summary.get("published");
            assertThat(published.get("state").asText()).isEqualTo("published");
            assertThat(published.get("revision").asInt()).isEqualTo(2);
            assertThat(summary.get("cancelled").get("state").asText()).isEqualTo("cancelled");
            NostrEvent reported = event(published.get("event").toString());
            assertThat(reported.pubkey()).isEqualTo(author.publicKey());
            assertThat(reported.content()).isEqualTo("final text");
            assertThat(relay.event(reported.id().hex())).hasValueSatisfying(stored ->
                    assertThat(event(stored)).isEqualTo(reported));
            assertThat(relay.event(summary.get("superseded_event_id").asText())).as("the first revision").isEmpty();
            assertThat(relay.events("{\"authors\":[\"" + author.publicKey().hex() + "\"]}"))
                    .as("only the edited event reached the relay").hasSize(1);
            assertThat(lines).anyMatch(line -> line.startsWith("the relay has " + reported.id().hex()));
        }
    }

    private static NostrEvent event(String json) {
        return ((NostrEventJson.Decoded.Event) NostrEventJson.read(json)).event();
    }

    /** {@code npm ci} in the example when its packages are missing (a fresh checkout outside {@code .ci/run}). */
    private static void installPackages() throws IOException, InterruptedException {
        if (Files.isDirectory(EXAMPLE.resolve("node_modules/nostr-tools"))
                && Files.isDirectory(EXAMPLE.resolve("node_modules/ws"))) {
            return;
        }
        Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
                .directory(EXAMPLE.toFile()).redirectErrorStream(true).start();
        npm.getOutputStream().close();
        String output = new String(npm.getInputStream().readAllBytes());
        assertThat(npm.waitFor(5, TimeUnit.MINUTES)).as("npm ci in " + EXAMPLE + " finished").isTrue();
        assertThat(npm.exitValue()).as("npm ci in " + EXAMPLE + ":\n" + output).isZero();
    }
}

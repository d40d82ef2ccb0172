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
 * When the sidecar or the relay cannot be reached, or the sidecar refuses, it says why in one line and exits 1.
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
    void example_againstServeAndTheRealRelay_publishesTheEditAndCancels_andOrdinaryFailuresAreOneLine() throws Exception {
        installPackages();
        SecretKey author = SecretKey.generate(new SecureRandom());
        try (TestRelay relay = TestRelay.start()) {
            int httpPort = processes.startServing(work, relay.url());

            Ran ran = example(Map.of("BUZZ_URL", "http://127.0.0.1:" + httpPort,
                    "RELAY_URL", relay.url().toString(), "BUZZ_AUTHOR_SECRET", author.hex(),
                    "BUZZ_CHANNEL", "general", "BUZZ_DUE_IN_SECONDS", "4"));
            String printed = ran.stdout();
            System.out.print(printed);
            assertThat(ran.exitCode()).as(ran.toString()).isZero();

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

            // Ordinary failures: one line saying why, exit 1, no stack trace.
            int closed = ServeProcesses.freePort();
            String sidecar = "http://127.0.0.1:" + httpPort;
            Ran sidecarDown = example(Map.of("BUZZ_URL", "http://127.0.0.1:" + closed));
            Ran relayDown = example(Map.of("BUZZ_URL", sidecar, "RELAY_URL", "ws://127.0.0.1:" + closed));
            Ran refused = example(Map.of("BUZZ_URL", sidecar, "RELAY_URL", relay.url().toString(),
                    "BUZZ_CHANNEL", "c".repeat(300)));
            assertThat(sidecarDown.stderr()).isEqualTo("schedule-and-watch: cannot reach the sidecar at http://127.0.0.1:"
                    + closed + " (ECONNREFUSED): is serve running there? (BUZZ_URL)\n");
            assertThat(relayDown.stderr()).startsWith("schedule-and-watch: cannot connect to the relay at ws://127.0.0.1:"
                    + closed + " (RELAY_URL)");
            assertThat(refused.stderr()).startsWith("schedule-and-watch: POST /v1/scheduled-messages: refused: HTTP 422"
                    + " missing_channel: ");
            for (Ran failed : List.of(sidecarDown, relayDown, refused)) {
                assertThat(failed.exitCode()).as(failed.toString()).isEqualTo(1);
                assertThat(failed.stderr().lines()).as("one line").hasSize(1);
                assertThat(failed.stderr()).doesNotContain("    at ").doesNotContain("TypeError");
            }
        }
    }

    /** What a run of the example did. */
    record Ran(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    /** Runs the example with {@code environment} and waits at most two minutes for it. */
    private Ran example(Map<String, String> environment) throws Exception {
        Path out = Files.createTempFile(work, "node", ".out");
        Path err = Files.createTempFile(work, "node", ".err");
        ProcessBuilder builder = new ProcessBuilder("node", "schedule-and-watch.mjs").directory(EXAMPLE.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(environment);
        Process node = builder.start();
        node.getOutputStream().close();
        boolean exited = node.waitFor(120, TimeUnit.SECONDS);
        if (!exited) {
            node.destroyForcibly();
        }
        Ran ran = new Ran(exited ? node.exitValue() : -1, Files.readString(out), Files.readString(err));
        assertThat(exited).as("the example finished within 120 s:\n" + ran).isTrue();
        return ran;
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

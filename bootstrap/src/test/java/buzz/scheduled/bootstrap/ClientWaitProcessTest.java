package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.bootstrap.cli.ClientCommands;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first hour with the client commands, each its own JVM against {@code serve} and the real Node relay (which
 * refuses a second author's events with {@code restricted:}): {@code keygen --out} makes the author key,
 * {@code wait} returns when the relay has the message (0), when it failed (7, with the reason and the relay's words)
 * or when its timeout ends (8); a second {@code cancel} says "already cancelled"; {@code list} says what it lists.
 */
class ClientWaitProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration COMMAND_LIMIT = Duration.ofSeconds(90);

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void firstHour_keygenScheduleWaitCancelList_sayWhatHappened() throws Exception {
        Path authorKey = work.resolve("config").resolve("author.key");
        Path refusedKey = work.resolve("refused.key");
        ServeProcesses.Completed keygen = processes.run(Map.of(), List.of("keygen", "--out", authorKey.toString()),
                "", COMMAND_LIMIT);
        assertThat(keygen.exitCode()).as(keygen.toString()).isZero();
        assertThat(keygen.stdout()).matches("[0-9a-f]{64}\\Rnpub1[02-9ac-hj-np-z]{58}\\R");
        assertThat(keygen.stderr()).as("keygen --out logs nothing about the sidecar's key").isEmpty();
        assertThat(processes.run(Map.of(), List.of("keygen", "--out", refusedKey.toString()), "", COMMAND_LIMIT)
                .exitCode()).isZero();
        String refusedHex = Files.readString(refusedKey).strip();
        String refusedPubkey = new SecretKey(refusedHex).publicKey().hex();

        try (TestRelay relay = TestRelay.builder().plugin("plugins/restricted-pubkeys.js")
                .env("TEST_RELAY_RESTRICTED_PUBKEYS", refusedPubkey).start()) {
            int port = processes.startServing(work, relay.url());
            Map<String, String> author = Map.of(ClientCommands.BUZZ_URL, "http://127.0.0.1:" + port,
                    ClientCommands.BUZZ_AUTHOR_KEY_FILE, authorKey.toString());

            // wait: published → 0, and the event is at the relay
            String id = id(ok(author, "schedule", "--channel", "general", "--in", "3s", "--json", "see you"));
            ServeProcesses.Completed published = client(author, "wait", id);
            assertThat(published.exitCode()).as(published.toString()).isEqualTo(ClientCommands.EXIT_OK);
            assertThat(published.stdout()).startsWith("published " + id + "  published  due ");
            String eventId = json(ok(author, "get", id, "--json")).get("event_id").asText();
            assertThat(relay.event(eventId)).as("the relay has it when wait returns").isPresent();

            // wait: refused by the relay → 7 with the reason and the relay's words
            Map<String, String> refused = Map.of(ClientCommands.BUZZ_URL, "http://127.0.0.1:" + port,
                    ClientCommands.BUZZ_AUTHOR_KEY_FILE, refusedKey.toString());
            String refusedId = id(ok(refused, "schedule", "--channel", "general", "--in", "2s", "--json", "no"));
            ServeProcesses.Completed failed = client(refused, "wait", refusedId, "--timeout", "60s");
            assertThat(failed.exitCode()).as(failed.toString()).isEqualTo(ClientCommands.EXIT_NOT_DELIVERED);
            assertThat(failed.stderr()).isEqualTo("wait: " + refusedId + " failed relay_rejected (relay: restricted:"
                    + " not a member of this channel); the relay will not get it\n");

            // wait: still pending at the timeout → 8
            String later = id(ok(author, "schedule", "--channel", "general", "--in", "1h", "--json", "later"));
            ServeProcesses.Completed timedOut = client(author, "wait", later, "--timeout", "2s");
            assertThat(timedOut.exitCode()).as(timedOut.toString()).isEqualTo(ClientCommands.EXIT_TIMED_OUT);
            assertThat(timedOut.stderr()).startsWith("wait: " + later + " is still scheduled after 2s (due ");

            // cancel twice: the second says so, exit 0
            assertThat(ok(author, "cancel", later).stdout()).startsWith("cancelled " + later + "  cancelled");
            assertThat(ok(author, "cancel", later).stdout()).startsWith("already cancelled " + later + "  cancelled");

            // list: says what it lists, and how to see the rest
            assertThat(ok(author, "list").stdout()).isEqualTo("no pending messages (scheduled, claimed, sending);"
                    + " list --all shows every state\n");
            String all = ok(author, "list", "--all").stdout();
            assertThat(all).startsWith("messages in any state, by due time:\n").contains(id + "  published")
                    .contains(later + "  cancelled");
            ServeProcesses.Completed badState = client(author, "list", "--state", "pending");
            assertThat(badState.exitCode()).isEqualTo(ClientCommands.EXIT_USAGE);
            assertThat(badState.stderr()).startsWith("list: --state takes a comma list of scheduled, claimed,"
                    + " sending, published, cancelled, failed (or --all for every state); 'pending' is not a state\n");
        }
    }

    private ServeProcesses.Completed client(Map<String, String> environment, String... args) throws Exception {
        return processes.run(environment, List.of(args), "", COMMAND_LIMIT);
    }

    private ServeProcesses.Completed ok(Map<String, String> environment, String... args) throws Exception {
        ServeProcesses.Completed completed = client(environment, args);
        assertThat(completed.exitCode()).as(String.join(" ", args) + "\n" + completed).isZero();
        return completed;
    }

    private static String id(ServeProcesses.Completed completed) throws Exception {
        return json(completed).get("id").asText();
    }

    private static JsonNode json(ServeProcesses.Completed completed) throws Exception {
        return JSON.readTree(completed.stdout());
    }
}

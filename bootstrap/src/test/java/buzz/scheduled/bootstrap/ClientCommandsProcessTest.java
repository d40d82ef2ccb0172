package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.signature.SecretKeyFile;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.cli.ClientCommands;
import buzz.scheduled.domain.nostr.Nip19;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client commands as an author runs them: each one its own JVM ({@code java -cp … Main} or the shaded jar named by
 * {@code buzz.serve.jar}) against {@code serve} on the embedded database and the real Node test relay, signing with a
 * key file in hex ({@code BUZZ_AUTHOR_KEY_FILE}) or nsec ({@code --key-file}). Only what the commands print and what
 * the relay receives is looked at.
 */
class ClientCommandsProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration COMMAND_LIMIT = Duration.ofSeconds(60);
    private static final Duration LATENESS_LIMIT = Duration.ofSeconds(2);

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();
    private final List<Long> commandMillis = new ArrayList<>();
    private Map<String, String> clientEnvironment;

    @Test
    void clientCommands_againstServeAndTheRealRelay_scheduleListEditCancelSendNowAndShowRefusals() throws Exception {
        SecretKey author = SecretKey.generate(new SecureRandom());
        Path hexKey = work.resolve("author.key");
        SecretKeyFile.write(hexKey, author);
        Path nsecKey = work.resolve("author.nsec");
        Files.writeString(nsecKey, Nip19.nsec(author.hex()) + "\n");
        Files.setPosixFilePermissions(nsecKey, PosixFilePermissions.fromString("rw-------"));
        try (TestRelay relay = TestRelay.start()) {
            int httpPort = processes.startServing(work, relay.url());
            clientEnvironment = Map.of(ClientCommands.BUZZ_URL, "http://127.0.0.1:" + httpPort,
                    ClientCommands.BUZZ_AUTHOR_KEY_FILE, hexKey.toString());
            try (LiveEvents live = LiveEvents.subscribe(relay.url(),
                    "{\"authors\":[\"" + author.publicKey().hex() + "\"]}")) {

                // schedule → list shows it
                JsonNode draft = json(ok("schedule", "--channel", "general", "--in", "10m", "--json", "first", "draft"));
                String draftId = draft.get("id").asText();
                String draftEventId = draft.get("event_id").asText();
                assertThat(draft.get("state").asText()).isEqualTo("scheduled");
                assertThat(draft.get("event").get("content").asText()).isEqualTo("first draft");
                assertThat(draft.get("event").get("pubkey").asText()).isEqualTo(author.publicKey().hex());
                assertThat(draft.get("event").get("tags").toString()).isEqualTo("[[\"h\",\"general\"]]");
                JsonNode page = json(ok("list", "--json"));
                assertThat(ids(page)).containsExactly(draftId);
                assertThat(ok("list").stdout()).contains(draftId + "  scheduled  due ").contains("channel general");

                // edit (with the nsec key file) → the next revision, due in a few seconds
                long editedDue = Instant.now().plusSeconds(15).getEpochSecond();
                JsonNode edited = json(ok("edit", draftId, "--at", Long.toString(editedDue), "--key-file",
                        nsecKey.toString(), "--json", "final text"));
                assertThat(edited.get("revision").asInt()).isEqualTo(2);
                assertThat(edited.get("due_at").asLong()).isEqualTo(editedDue);
                assertThat(edited.get("event").get("content").asText()).isEqualTo("final text");
                String editedEventId = edited.get("event_id").asText();
                assertThat(editedEventId).isNotEqualTo(draftEventId);

                // cancel another
                String doomedId = json(ok("schedule", "--channel", "general", "--in", "1h", "--json", "never sent"))
                        .get("id").asText();
                String doomedEventId = json(ok("get", doomedId, "--json")).get("event_id").asText();
                ServeProcesses.Completed cancelled = ok("cancel", doomedId);
                assertThat(cancelled.stdout()).startsWith("cancelled " + doomedId + "  cancelled");

                // send-now a third: due in 2 h, further than the relay's window, so the CLI signs it again for now
                String urgentId = json(ok("schedule", "--channel", "general", "--in", "2h", "--tag", "subject=urgent",
                        "--json", "right away")).get("id").asText();
                long beforeSendNow = Instant.now().getEpochSecond();
                ServeProcesses.Completed sentNow = ok("send-now", urgentId, "--json");
                JsonNode urgent = json(sentNow);
                assertThat(sentNow.stderr()).contains("signed it again");
                assertThat(urgent.get("revision").asInt()).isEqualTo(2);
                assertThat(urgent.get("event").get("tags").toString())
                        .isEqualTo("[[\"h\",\"general\"],[\"subject\",\"urgent\"]]");
                assertThat(urgent.get("event").get("created_at").asLong()).isBetween(beforeSendNow,
                        Instant.now().getEpochSecond());
                String urgentEventId = urgent.get("event_id").asText();

                // refusals: the API's code and message, a non-zero exit, the error JSON on stdout with --json
                ServeProcesses.Completed notPending = client("edit", doomedId, "--in", "1h", "--json", "too late");
                assertThat(notPending.exitCode()).as(notPending.toString()).isEqualTo(ClientCommands.EXIT_REFUSED);
                assertThat(json(notPending).get("error").asText()).isEqualTo("not_pending");
                assertThat(notPending.stderr()).contains("HTTP 409 not_pending: " + json(notPending).get("message").asText());
                ServeProcesses.Completed past = client("schedule", "--channel", "general", "--at", "1700000000", "late");
                assertThat(past.exitCode()).as(past.toString()).isEqualTo(ClientCommands.EXIT_REFUSED);
                assertThat(past.stdout()).isEmpty();
                assertThat(past.stderr()).startsWith("schedule: refused: HTTP 422 time_in_past: created_at 1700000000");

                // the relay receives the edited event at its time and the sent-now one; never the draft or the cancelled
                List<LiveEvents.Arrival> arrivals = live.await(2, Duration.ofSeconds(60));
                Map<String, Instant> arrivedAt = arrivals.stream()
                        .collect(Collectors.toMap(LiveEvents.Arrival::eventId, LiveEvents.Arrival::at));
                assertThat(arrivedAt.keySet()).containsExactlyInAnyOrder(editedEventId, urgentEventId);
                Instant due = Instant.ofEpochSecond(editedDue);
                assertThat(arrivedAt.get(editedEventId)).as("never before the due time").isAfterOrEqualTo(due);
                assertThat(Duration.between(due, arrivedAt.get(editedEventId))).isLessThanOrEqualTo(LATENESS_LIMIT);
                Poll.until("both messages published", Duration.ofSeconds(20), () -> states(draftId, urgentId)
                        .equals(List.of("published", "published")));
                assertThat(relay.event(draftEventId)).as("the superseded revision").isEmpty();
                assertThat(relay.event(doomedEventId)).as("the cancelled message").isEmpty();
                assertThat(live.arrivals()).extracting(LiveEvents.Arrival::eventId)
                        .containsExactlyInAnyOrder(editedEventId, urgentEventId);
                assertThat(ids(json(ok("list", "--state", "published,cancelled", "--json"))))
                        .containsExactlyInAnyOrder(draftId, doomedId, urgentId);
                assertThat(ok("get", draftId).stdout()).contains("state:      published").contains("content:    final text");
                System.out.printf("%d client commands, %d ms each on average (JVM start included); the edited"
                                + " event reached the relay %d ms after its due time%n", commandMillis.size(),
                        commandMillis.stream().mapToLong(Long::longValue).sum() / commandMillis.size(),
                        Duration.between(due, arrivedAt.get(editedEventId)).toMillis());
            }
        }
    }

    private ServeProcesses.Completed client(String... args) throws Exception {
        long started = System.nanoTime();
        ServeProcesses.Completed completed = processes.run(clientEnvironment, List.of(args), "", COMMAND_LIMIT);
        commandMillis.add((System.nanoTime() - started) / 1_000_000);
        return completed;
    }

    private ServeProcesses.Completed ok(String... args) throws Exception {
        ServeProcesses.Completed completed = client(args);
        assertThat(completed.exitCode()).as(String.join(" ", args) + "\n" + completed).isEqualTo(ClientCommands.EXIT_OK);
        return completed;
    }

    private List<String> states(String... ids) {
        List<String> states = new ArrayList<>();
        try {
            for (String id : ids) {
                states.add(json(ok("get", id, "--json")).get("state").asText());
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return states;
    }

    private static JsonNode json(ServeProcesses.Completed completed) throws Exception {
        return JSON.readTree(completed.stdout());
    }

    private static Set<String> ids(JsonNode page) {
        Set<String> ids = new java.util.LinkedHashSet<>();
        page.get("items").forEach(item -> ids.add(item.get("id").asText()));
        return ids;
    }
}

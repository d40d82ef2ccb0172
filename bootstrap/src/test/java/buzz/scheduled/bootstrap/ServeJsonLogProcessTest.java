package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.FakeRelay;
import buzz.scheduled.application.testing.Poll;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} in its own JVM with {@code BUZZ_LOG_FORMAT=json} while it publishes one message, has one refused by
 * the relay, refuses one request and is stopped with a send still in flight: every line it writes is one JSON
 * object — the access log, the outcome lines, the JDBC driver's (java.util.logging) and the dispatcher's
 * (System.Logger) included — and the dispatcher's line on the claim it gave back unanswered is written before the
 * last line.
 */
class ServeJsonLogProcessTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void serve_jsonFormatWhileDeliveringFailingAndRefusing_writesOnlyJsonObjectsOneALine() throws Exception {
        int httpPort = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        try (FakeRelay relay = FakeRelay.start()) {
            relay.answerEvents(new FakeRelay.Answer.Reply(true, ""),
                    new FakeRelay.Answer.Reply(false, "blocked: not allowed here"), new FakeRelay.Answer.Silence());
            // receiveBufferSize=0 makes pgjdbc warn through java.util.logging on every connection it opens.
            Process serve = processes.start(Map.of("DATABASE_URL", db.jdbcUrl() + "&receiveBufferSize=0",
                    "BUZZ_DATA_DIR", work.resolve("var").toString(), "HTTP_PORT", Integer.toString(httpPort),
                    "BUZZ_SCHEDULED_MESSAGES", "on", "RELAY_URL", relay.url().toString(),
                    "BUZZ_LOG_FORMAT", "json", "BUZZ_SHUTDOWN_GRACE_SECONDS", "1",
                    "BUZZ_PUBLISH_TIMEOUT_SECONDS", "30"), log);
            ServeProcesses.awaitHealthy(serve, httpPort, log);
            OwnerClient owner = new OwnerClient(httpPort);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                OwnerClient.Reply created = owner.schedule(owner.message("general", "json log " + i,
                        Duration.ofSeconds(4 + 2L * i)));
                assertThat(created.status()).as(created.text()).isEqualTo(201);
                ids.add(created.json().get("id").asText());
            }
            OwnerClient.Reply refused = owner.schedule(owner.message("general", "past", Duration.ofHours(-1)));
            assertThat(refused.status()).isEqualTo(422);
            Poll.until("the first published, the second failed, the third sent", Duration.ofSeconds(60),
                    () -> state(owner, ids.get(0)).equals("published") && state(owner, ids.get(1)).equals("failed")
                            && relay.received("EVENT").size() >= 3);

            serve.destroy();
            assertThat(serve.waitFor(60, TimeUnit.SECONDS)).as("serve stopped on SIGTERM").isTrue();
        }

        List<String> lines = Files.readAllLines(log).stream().filter(line -> !line.isBlank()).toList();
        List<JsonNode> records = new ArrayList<>();
        for (String line : lines) {
            JsonNode record;
            try {
                record = JSON.readTree(line);
            } catch (java.io.IOException e) {
                throw new AssertionError("not JSON: " + line + "\n--- whole output:\n" + String.join("\n", lines), e);
            }
            assertThat(record.isObject()).as("one JSON object: " + line).isTrue();
            assertThat(record.has("level") && record.has("loggerName") && record.has("formattedMessage")).as(line).isTrue();
            records.add(record);
        }
        List<String> loggers = records.stream().map(record -> record.get("loggerName").asText()).toList();
        assertThat(loggers).contains("buzz.access", "buzz.delivery",
                "buzz.scheduled.application.service.Dispatcher");
        assertThat(loggers).anyMatch(name -> name.startsWith("org.postgresql."));
        assertThat(messages(records, "buzz.delivery")).anyMatch(m -> m.startsWith("published id=") && m.contains(" lateness="))
                .anyMatch(m -> m.startsWith("rejected ") && m.contains("detail=\"blocked: not allowed here\""));
        assertThat(messages(records, "buzz.access")).anyMatch(m -> m.startsWith("POST /v1/scheduled-messages ")
                && m.contains(" 422 "));
        assertThat(String.join("\n", lines)).doesNotContain("Nostr ey").doesNotContain("json log 0");
        // The third message's frame was written and never answered: at the end of the grace the dispatcher gives it
        // back to be asked about by the next claim (docs/delivery.md, "Recovery"), an expected step logged at INFO.
        int givenBack = indexOf(records, "buzz.scheduled.application.service.Dispatcher",
                "still unanswered after the shutdown bound");
        int stopped = indexOf(records, Main.class.getName(), "stopped");
        assertThat(givenBack).as("the dispatcher's line on what it gave back unanswered").isNotNegative();
        assertThat(records.get(givenBack).get("level").asText()).isEqualTo("INFO");
        assertThat(stopped).as("the last line of the shutdown hook").isGreaterThan(givenBack);
    }

    private static List<String> messages(List<JsonNode> records, String logger) {
        return records.stream().filter(record -> record.get("loggerName").asText().equals(logger))
                .map(record -> record.get("formattedMessage").asText()).toList();
    }

    private static int indexOf(List<JsonNode> records, String logger, String text) {
        for (int i = 0; i < records.size(); i++) {
            JsonNode record = records.get(i);
            if (record.get("loggerName").asText().equals(logger) && record.get("formattedMessage").asText().contains(text)) {
                return i;
            }
        }
        return -1;
    }

    private static String state(OwnerClient owner, String id) {
        try {
            return owner.get(id).json().get("state").asText();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

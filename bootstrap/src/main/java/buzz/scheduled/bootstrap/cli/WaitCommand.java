package buzz.scheduled.bootstrap.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The {@code wait} command: reads a message through the owner API (docs/openapi.yaml) until it is published, failed
 * or cancelled, or the timeout ends; on a failure it names the relay's words. Run by {@link ClientCommands}.
 */
final class WaitCommand {
    /** How long past its due time {@code wait} waits by default: the sidecar's default lateness limit. */
    static final Duration WAIT_PAST_DUE = Duration.ofMinutes(15);
    /** The longest pause between two reads of {@code wait}. */
    private static final Duration LONGEST_POLL = Duration.ofSeconds(15);

    private static final ObjectMapper JSON = new ObjectMapper();

    private WaitCommand() {
    }

    /**
     * {@code wait}: reads the message until it ends or the timeout passes, sooner while it is due or nearly due and
     * less often while its due time is far (at most every {@link #LONGEST_POLL}).
     *
     * @return the published item
     * @throws ClientFailure {@link ClientCommands#EXIT_NOT_DELIVERED} with the reason and the relay's words when it
     *                       failed or was cancelled, {@link ClientCommands#EXIT_TIMED_OUT} when the timeout ended
     *                       first
     */
    static SidecarApi.Answer awaitEnd(SidecarApi api, ClientRequest.Wait wait, InstantSource clock) {
        String path = ClientCommands.item(wait.id().toString());
        long started = System.nanoTime();
        SidecarApi.Answer answer = api.get(path).requireSuccess();
        Duration untilDue = Duration.ofSeconds(answer.body().path("due_at").asLong()
                - clock.instant().getEpochSecond());
        Duration timeout = wait.timeout().orElse((untilDue.isNegative() ? Duration.ZERO : untilDue)
                .plus(WAIT_PAST_DUE));
        while (true) {
            JsonNode item = answer.body();
            String state = item.path("state").asText();
            switch (state) {
                case "published" -> {
                    return answer;
                }
                case "failed", "cancelled" -> throw new ClientFailure(ClientCommands.EXIT_NOT_DELIVERED, wait.id() + " "
                        + state + (item.path("reason").isTextual() ? " " + item.get("reason").asText() : "")
                        + relayWords(api, path, item).map(words -> " (relay: " + words + ")").orElse("")
                        + "; the relay will not get it", Optional.of(answer.text()));
                default -> {
                }
            }
            Duration left = timeout.minusNanos(System.nanoTime() - started);
            if (left.isNegative() || left.isZero()) {
                throw new ClientFailure(ClientCommands.EXIT_TIMED_OUT, wait.id() + " is still " + state + " after "
                        + ItemText.span(timeout) + " (due " + ItemText.time(item.path("due_at"), clock.instant())
                        + ")", Optional.of(answer.text()));
            }
            long dueIn = item.path("due_at").asLong() - clock.instant().getEpochSecond();
            Duration pause = Duration.ofSeconds(Math.clamp(dueIn / 2, 1, LONGEST_POLL.toSeconds()));
            try {
                Thread.sleep(pause.compareTo(left) < 0 ? pause : left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClientFailure(ClientCommands.EXIT_FAILED, "interrupted while waiting for " + wait.id());
            }
            answer = api.get(path).requireSuccess();
        }
    }

    /**
     * The relay's words on the message's last failed or retried attempt: the item's {@code last_error}, else the
     * last {@code relay_message} of {@code GET …/attempts} (docs/openapi.yaml); empty when neither has any.
     */
    private static Optional<String> relayWords(SidecarApi api, String path, JsonNode item) {
        if (item.path("last_error").isTextual() && !item.get("last_error").asText().isEmpty()) {
            return Optional.of(item.get("last_error").asText());
        }
        try {
            SidecarApi.Answer attempts = api.get(path + "/attempts");
            JsonNode list = attempts.status() == 200 ? JSON.readTree(attempts.text()) : null;
            JsonNode entries = list != null && list.isObject() ? list.path("attempts") : list;
            if (entries == null || !entries.isArray()) {
                return Optional.empty();
            }
            for (int i = entries.size() - 1; i >= 0; i--) {
                JsonNode words = entries.get(i).path("relay_message");
                if (words.isTextual() && !words.asText().isEmpty()) {
                    return Optional.of(words.asText());
                }
            }
            return Optional.empty();
        } catch (ClientFailure | IOException e) {
            // The words are a courtesy; the outcome is already known.
            return Optional.empty();
        }
    }
}

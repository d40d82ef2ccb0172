package buzz.scheduled.bootstrap.cli;

import buzz.scheduled.domain.schedule.StateName;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.UUID;

/**
 * What the client commands print without {@code --json}: a short summary of the API's answer for each command, and
 * how a series stands. Lines of one item come from {@link ItemText}.
 */
final class AnswerSummary {
    /** An occurrence's local time in its series' zone: {@code Mon 2026-12-07 09:00 CET}. */
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("EEE yyyy-MM-dd HH:mm zzz", Locale.ROOT);
    private AnswerSummary() {
    }

    /** The short summary of a successful answer to {@code request}, for the terminal. */
    static String summary(ClientRequest request, SidecarApi.Answer answer, InstantSource clock) {
        Instant now = clock.instant();
        JsonNode body = answer.body();
        return switch (request) {
            case ClientRequest.Schedule schedule when schedule.series().isPresent() ->
                    seriesSummary(schedule.series().get(), body, now);
            case ClientRequest.Schedule schedule -> "scheduled " + ItemText.line(body, now);
            case ClientRequest.CancelMatching cancel -> {
                int sending = body.path("sending").asInt();
                yield "cancelled " + body.path("cancelled").asInt() + " pending message"
                        + (body.path("cancelled").asInt() == 1 ? "" : "s") + (sending == 0 ? "" : "; " + sending
                        + " being sent right now could not be stopped");
            }
            case ClientRequest.ListItems list -> {
                StringJoiner lines = new StringJoiner("\n");
                String which = list.state().map(states -> states.equals(String.join(",",
                                StateName.wireNames(StateName.all()))) ? "messages in any state"
                                : "messages in state " + states.replace(",", ", "))
                        .orElse("pending messages (" + String.join(", ", StateName.wireNames(
                                StateName.where(state -> !state.terminal()))) + ")")
                        + list.channel().map(channel -> " in channel " + channel).orElse("");
                if (body.path("items").isEmpty()) {
                    lines.add("no " + which + (list.state().isEmpty() ? "; list --all shows every state" : ""));
                } else {
                    lines.add(which + ", by due time:");
                }
                body.path("items").forEach(item -> lines.add(ItemText.line(item, now)));
                if (body.path("next_cursor").isTextual()) {
                    lines.add("more: list --cursor " + body.get("next_cursor").asText());
                }
                yield lines.toString();
            }
            case ClientRequest.Get get -> ItemText.details(body, now);
            case ClientRequest.Edit edit -> "edited " + ItemText.line(body, now);
            case ClientRequest.Cancel cancel -> (answer.method().equals("GET") ? "already cancelled "
                    : "cancelled ") + ItemText.line(body, now);
            case ClientRequest.SendNow sendNow -> "sending now " + ItemText.line(body, now);
            case ClientRequest.Wait wait -> "published " + ItemText.line(body, now)
                    + (body.path("published_at").isNumber() ? "  at " + ItemText.time(body.get("published_at"), now)
                    : "");
            case ClientRequest.Settings settings -> "notices: " + body.path("notices").asText()
                    + (body.path("notices_enabled").asBoolean() ? "" : " (this sidecar sends no notices: its operator"
                    + " has not switched them on)");
        };
    }

    /**
     * A series batch's answer: its id and how many were scheduled, then each occurrence with its local time in the
     * series' zone, or its refusal.
     */
    private static String seriesSummary(ClientRequest.Series series, JsonNode body, Instant now) {
        JsonNode results = body.path("results");
        long scheduled = 0;
        StringJoiner lines = new StringJoiner("\n");
        for (int i = 0; i < results.size(); i++) {
            JsonNode result = results.get(i);
            if (result.has("item")) {
                scheduled++;
                JsonNode item = result.get("item");
                lines.add("  " + ItemText.line(item, now) + "  " + LOCAL.format(Instant.ofEpochSecond(
                        item.path("due_at").asLong()).atZone(series.zone())));
            } else {
                lines.add("  occurrence " + (i + 1) + " refused: " + result.path("error").asText() + ": "
                        + result.path("message").asText());
            }
        }
        String id = body.path("series_id").isTextual() ? body.get("series_id").asText() : "(none)";
        return "series " + id + ": " + scheduled + " of " + results.size() + " scheduled, every "
                + series.recurrence().step() + " in " + series.zone() + "\n" + lines;
    }

    /** How a series stands, from {@code GET /v1/scheduled-messages/series/{id}}. */
    static String seriesLine(SidecarApi api, UUID series, InstantSource clock) {
        SidecarApi.Answer answer = api.get(ClientCommands.COLLECTION + "/series/" + series);
        if (answer.status() == 404) {
            return "series " + series + ": none of its messages is stored";
        }
        JsonNode summary = answer.requireSuccess().body();
        Instant now = clock.instant();
        return "series " + series + ": " + summary.path("pending").asInt() + " of " + summary.path("total").asInt()
                + " pending" + (summary.path("pending").asInt() > 0 ? ", next due "
                + ItemText.time(summary.path("next_due_at"), now) + ", last due "
                + ItemText.time(summary.path("last_due_at"), now) : "");
    }
}

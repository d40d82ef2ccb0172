package buzz.scheduled.bootstrap.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.StringJoiner;

/**
 * The human form of the API's items (docs/openapi.yaml, {@code Item}): times as RFC 3339 in UTC with how far from
 * now they are. Scripts use {@code --json} instead; this text may change.
 */
final class ItemText {

    private ItemText() {
    }

    /** One line: id, state (with its reason), due time, channel, revision. */
    static String line(JsonNode item, Instant now) {
        String reason = item.path("reason").isTextual() ? " (" + item.get("reason").asText() + ")" : "";
        return item.path("id").asText() + "  " + item.path("state").asText() + reason + "  due "
                + time(item.path("due_at"), now) + "  channel " + item.path("channel").asText() + "  revision "
                + item.path("revision").asText();
    }

    /** Every field, one a line, with the event's kind, tags and content when it is still stored. */
    static String details(JsonNode item, Instant now) {
        StringJoiner lines = new StringJoiner("\n");
        lines.add("id:         " + item.path("id").asText());
        lines.add("state:      " + item.path("state").asText()
                + (item.path("reason").isTextual() ? " (" + item.get("reason").asText() + ")" : ""));
        lines.add("due:        " + time(item.path("due_at"), now));
        lines.add("channel:    " + item.path("channel").asText());
        lines.add("revision:   " + item.path("revision").asText());
        lines.add("attempts:   " + item.path("attempts").asText());
        lines.add("event id:   " + item.path("event_id").asText());
        lines.add("created:    " + time(item.path("created_at"), now));
        lines.add("updated:    " + time(item.path("updated_at"), now));
        if (item.path("published_at").isNumber()) {
            lines.add("published:  " + time(item.get("published_at"), now));
        }
        JsonNode event = item.path("event");
        if (event.isObject()) {
            lines.add("kind:       " + event.path("kind").asText());
            lines.add("tags:       " + event.path("tags"));
            lines.add("content:    " + event.path("content").asText());
        } else {
            lines.add("event:      (deleted)");
        }
        return lines.toString();
    }

    /** {@code 2026-03-01T09:30:00Z (in 4m 10s)}, or {@code -} when absent. */
    static String time(JsonNode seconds, Instant now) {
        if (!seconds.isNumber()) {
            return "-";
        }
        Instant at = Instant.ofEpochSecond(seconds.asLong());
        Duration between = Duration.between(now, at);
        String relative = between.isNegative() ? span(between.negated()) + " ago" : "in " + span(between);
        return DateTimeFormatter.ISO_INSTANT.format(at) + " (" + relative + ")";
    }

    /** {@code 2d 3h}, {@code 4h 5m}, {@code 6m 7s} or {@code 8s}: the two largest units. */
    static String span(Duration duration) {
        long seconds = duration.toSeconds();
        long days = seconds / 86_400;
        long hours = seconds % 86_400 / 3_600;
        long minutes = seconds % 3_600 / 60;
        long rest = seconds % 60;
        if (days > 0) {
            return days + "d " + hours + "h";
        }
        if (hours > 0) {
            return hours + "h " + minutes + "m";
        }
        return minutes > 0 ? minutes + "m " + rest + "s" : rest + "s";
    }
}

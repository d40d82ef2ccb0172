package buzz.scheduled.bootstrap.cli;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * What the client commands send to the owner API (docs/openapi.yaml): the events they sign as the author (a series'
 * occurrences, an edit's next revision, a send-now's re-signed event), the bodies around them and the list's query.
 */
final class RequestBodies {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestBodies() {
    }

    /**
     * The batch of a series: every occurrence signed, each with the schedule's kind, tags and content, as
     * {@code {"events":[…],"series":true}}.
     */
    static byte[] seriesBatch(ClientRequest.Schedule schedule, List<List<String>> tags, Bip340Signer signer,
                              InstantSource clock) {
        ClientRequest.Series series = schedule.series().orElseThrow();
        List<Instant> occurrences = series.recurrence().occurrences(schedule.due().local(series.zone(),
                clock.instant()), series.zone());
        StringJoiner events = new StringJoiner(",", "{\"events\":[", "],\"series\":true}");
        for (Instant at : occurrences) {
            events.add(NostrEventJson.write(signer.sign(at.getEpochSecond(), schedule.kind(), tags,
                    schedule.content())));
        }
        return events.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The bulk cancel's body: the parts of the selection given, due bounds in Unix seconds. */
    static byte[] selection(ClientRequest.CancelMatching cancel, InstantSource clock) {
        Instant now = clock.instant();
        Map<String, Object> body = new LinkedHashMap<>();
        cancel.channel().ifPresent(channel -> body.put("channel", channel));
        cancel.series().ifPresent(series -> body.put("series", series.toString()));
        cancel.dueAfter().ifPresent(due -> body.put("due_after", due.epochSeconds(now)));
        cancel.dueBefore().ifPresent(due -> body.put("due_before", due.epochSeconds(now)));
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a selection of strings and numbers is always JSON", e);
        }
    }

    /** The next revision: the stored event's kind and tags, with the new due time and/or content. */
    static NostrEvent nextRevision(Bip340Signer signer, JsonNode item, ClientRequest.Edit edit, InstantSource clock) {
        JsonNode event = item.path("event");
        long createdAt = edit.due().map(due -> due.epochSeconds(clock.instant()))
                .orElse(event.path("created_at").asLong(item.path("due_at").asLong()));
        String content = edit.content().orElse(event.path("content").asText(""));
        return signer.sign(createdAt, event.path("kind").asInt(9), storedTags(item), content);
    }

    /** The stored event signed again for {@code createdAt} (send-now after {@code resign_required}). */
    static NostrEvent resign(Bip340Signer signer, JsonNode item, long createdAt) {
        JsonNode event = item.path("event");
        return signer.sign(createdAt, event.path("kind").asInt(9), storedTags(item), event.path("content").asText(""));
    }

    /**
     * The stored event's tags, or just the {@code h} tag when the event is gone (a terminal message: the sidecar
     * then answers the edit with its own refusal).
     */
    private static List<List<String>> storedTags(JsonNode item) {
        JsonNode tags = item.path("event").path("tags");
        if (!tags.isArray()) {
            return List.of(List.of("h", item.path("channel").asText()));
        }
        List<List<String>> result = new ArrayList<>();
        for (JsonNode tag : tags) {
            List<String> values = new ArrayList<>();
            tag.forEach(value -> values.add(value.asText()));
            result.add(values);
        }
        return result;
    }

    /** {@code {"event":…}}, the body of a create or an edit. */
    static byte[] envelope(NostrEvent event) {
        return ("{\"event\":" + NostrEventJson.write(event) + "}").getBytes(StandardCharsets.UTF_8);
    }

    /** The list's query string, {@code ?state=…&channel=…}, or nothing. */
    static String query(ClientRequest.ListItems list) {
        StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
        list.state().ifPresent(value -> query.add("state=" + encode(value)));
        list.channel().ifPresent(value -> query.add("channel=" + encode(value)));
        list.limit().ifPresent(value -> query.add("limit=" + value));
        list.cursor().ifPresent(value -> query.add("cursor=" + encode(value)));
        list.series().ifPresent(value -> query.add("series=" + value));
        return query.toString();
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace("%2C", ",");
    }
}

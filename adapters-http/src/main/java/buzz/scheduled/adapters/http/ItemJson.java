package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The item document (docs/openapi.yaml, schema {@code Item}): {@code id, revision, state, reason, channel,
 * event_id, due_at, attempts, created_at, updated_at, published_at, series_id, event}. Times are Unix seconds;
 * {@code reason}, {@code published_at} and {@code series_id} are null when not applicable; {@code event} is absent
 * once the payload is purged.
 */
final class ItemJson {
    private static final ObjectMapper WRITER = new ObjectMapper();

    private ItemJson() {
    }

    /** The item as an ordered JSON object. */
    static Map<String, Object> of(ScheduledMessage message) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("id", message.id().toString());
        item.put("revision", message.revision().number());
        item.put("state", message.state().wireName());
        item.put("reason", message.failureReason().map(FailureReason::wireName).orElse(null));
        item.put("channel", message.channel().value());
        item.put("event_id", message.eventId().hex());
        item.put("due_at", seconds(message.dueAt()));
        item.put("attempts", message.attempts());
        item.put("created_at", seconds(message.createdAt()));
        item.put("updated_at", seconds(message.updatedAt()));
        item.put("published_at", message.publishedAt().map(ItemJson::seconds).orElse(null));
        item.put("series_id", message.series().map(SeriesId::toString).orElse(null));
        message.event().ifPresent(event -> item.put("event", NostrEventJson.toJson(event)));
        return item;
    }

    /**
     * The UTF-8 length in bytes of {@code item} (from {@link #of}) written as JSON the way answers are written.
     *
     * @throws IllegalStateException if Jackson cannot write it (it always can: maps, strings and numbers)
     */
    static long bytes(Map<String, Object> item) {
        try {
            return WRITER.writeValueAsBytes(item).length;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an item could not be written as JSON", e);
        }
    }

    /** {@code ETag} value for the current revision: {@code "<revision>"}. */
    static String etag(ScheduledMessage message) {
        return "\"" + message.revision().number() + "\"";
    }

    private static Long seconds(Instant instant) {
        return instant.getEpochSecond();
    }
}

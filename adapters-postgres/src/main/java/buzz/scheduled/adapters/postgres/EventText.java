package buzz.scheduled.adapters.postgres;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The text form of a signed event in the {@code event_json} columns: a NIP-01 event object with the seven
 * fields in NIP-01 order. Every value round-trips exactly (strings, integers, tag order), so the id and
 * signature the author made stay valid; the column is {@code text}, not {@code jsonb}, so PostgreSQL never
 * re-orders or re-encodes it.
 */
final class EventText {

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private EventText() {
    }

    /** Writes {@code event} as a JSON object. */
    static String write(NostrEvent event) {
        StringWriter out = new StringWriter(256 + event.content().length());
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("id", event.id().hex());
            json.writeStringField("pubkey", event.pubkey().hex());
            json.writeNumberField("created_at", event.createdAt());
            json.writeNumberField("kind", event.kind());
            json.writeArrayFieldStart("tags");
            for (List<String> tag : event.tags()) {
                json.writeStartArray();
                for (String value : tag) {
                    json.writeString(value);
                }
                json.writeEndArray();
            }
            json.writeEndArray();
            json.writeStringField("content", event.content());
            json.writeStringField("sig", event.sig().hex());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write event " + event.id(), e);
        }
        return out.toString();
    }

    /**
     * Reads what {@link #write} wrote.
     *
     * @throws IllegalStateException when the stored text is not such an object (a corrupted row)
     */
    static NostrEvent read(String text) {
        try (JsonParser json = JSON.createParser(text)) {
            expect(json.nextToken(), JsonToken.START_OBJECT);
            String id = null;
            String pubkey = null;
            String sig = null;
            String content = null;
            Long createdAt = null;
            Integer kind = null;
            List<List<String>> tags = null;
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                String field = json.currentName();
                JsonToken value = json.nextToken();
                switch (field) {
                    case "id" -> id = string(json, value);
                    case "pubkey" -> pubkey = string(json, value);
                    case "sig" -> sig = string(json, value);
                    case "content" -> content = string(json, value);
                    case "created_at" -> {
                        expect(value, JsonToken.VALUE_NUMBER_INT);
                        createdAt = json.getLongValue();
                    }
                    case "kind" -> {
                        expect(value, JsonToken.VALUE_NUMBER_INT);
                        kind = json.getIntValue();
                    }
                    case "tags" -> tags = tags(json, value);
                    default -> throw new IllegalStateException("stored event has an unknown field " + field);
                }
            }
            if (id == null || pubkey == null || sig == null || content == null || createdAt == null || kind == null
                    || tags == null) {
                throw new IllegalStateException("stored event lacks one of the seven NIP-01 fields");
            }
            return new NostrEvent(new EventId(id), new PublicKey(pubkey), createdAt, kind, tags, content,
                    new Signature(sig));
        } catch (IOException e) {
            throw new IllegalStateException("stored event is not valid JSON: " + e.getMessage(), e);
        }
    }

    private static List<List<String>> tags(JsonParser json, JsonToken start) throws IOException {
        expect(start, JsonToken.START_ARRAY);
        List<List<String>> tags = new ArrayList<>();
        for (JsonToken t = json.nextToken(); t != JsonToken.END_ARRAY; t = json.nextToken()) {
            expect(t, JsonToken.START_ARRAY);
            List<String> tag = new ArrayList<>();
            for (JsonToken v = json.nextToken(); v != JsonToken.END_ARRAY; v = json.nextToken()) {
                tag.add(string(json, v));
            }
            tags.add(tag);
        }
        return tags;
    }

    private static String string(JsonParser json, JsonToken token) throws IOException {
        expect(token, JsonToken.VALUE_STRING);
        return json.getText();
    }

    private static void expect(JsonToken actual, JsonToken expected) {
        if (actual != expected) {
            throw new IllegalStateException("stored event: expected " + expected + " but found " + actual);
        }
    }
}

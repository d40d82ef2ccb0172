package buzz.scheduled.domain.nostr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and writes a Nostr event as wire JSON (NIP-01 event object), strictly.
 *
 * <p>Reading accepts exactly the seven fields {@code id, pubkey, created_at, kind, tags, content, sig}: a missing
 * field, a field of the wrong JSON type, or any other field (nothing outside the seven is covered by the
 * signature, so a strict acceptor refuses rather than silently storing or dropping it) is refused with a reason
 * naming the field. Text input goes through {@link StrictJson} first (duplicate keys, non-integers and lone
 * surrogates refused). Reading checks shape only; the signature port decides whether id and sig are right.
 */
public final class NostrEventJson {

    /** The seven NIP-01 event fields, in the order they are written. */
    public static final List<String> FIELDS =
            List.of("id", "pubkey", "created_at", "kind", "tags", "content", "sig");

    private static final Set<String> FIELD_SET = Set.copyOf(FIELDS);

    private NostrEventJson() {
    }

    /** The outcome of reading an event: the event, or why it was refused. */
    public sealed interface Decoded permits Decoded.Event, Decoded.Malformed {

        /** A well-formed event (its id and signature are not yet checked). */
        record Event(NostrEvent event) implements Decoded {
            public Event {
                if (event == null) {
                    throw new IllegalArgumentException("event is missing");
                }
            }
        }

        /** A refused event; {@code reason} names the field or JSON problem, e.g. "uppercase hex in sig". */
        record Malformed(String reason) implements Decoded {
            public Malformed {
                if (reason == null || reason.isBlank()) {
                    throw new IllegalArgumentException("reason is missing");
                }
            }
        }
    }

    /** Reads an event from its wire text (one JSON object). */
    public static Decoded read(String wireText) {
        return fromParsed(StrictJson.parse(wireText));
    }

    /** Reads an event from UTF-8 wire bytes (one JSON object); malformed UTF-8 is refused. */
    public static Decoded read(byte[] utf8) {
        return fromParsed(StrictJson.parse(utf8));
    }

    private static Decoded fromParsed(StrictJson.Parsed parsed) {
        return switch (parsed) {
            case StrictJson.Parsed.Malformed malformed -> new Decoded.Malformed(malformed.reason());
            case StrictJson.Parsed.Value value -> fromJson(value.value());
        };
    }

    /**
     * Turns an already parsed JSON value (as {@link StrictJson} produces it) into an event, e.g. the
     * {@code "event"} member of an HTTP request body.
     */
    public static Decoded fromJson(Object json) {
        if (!(json instanceof Map<?, ?> object)) {
            return new Decoded.Malformed("event must be a JSON object, got " + StrictJson.describe(json));
        }
        for (String field : FIELDS) {
            if (!object.containsKey(field)) {
                return new Decoded.Malformed("field \"" + field + "\" is missing");
            }
        }
        for (Object key : object.keySet()) {
            if (!FIELD_SET.contains(key)) {
                return new Decoded.Malformed("unknown field \"" + key + "\": an event has exactly the fields "
                        + String.join(", ", FIELDS) + " (others are not covered by the signature)");
            }
        }
        Object id = object.get("id");
        Object pubkey = object.get("pubkey");
        Object createdAt = object.get("created_at");
        Object kind = object.get("kind");
        Object tags = object.get("tags");
        Object content = object.get("content");
        Object sig = object.get("sig");
        String typeProblem = firstTypeProblem(id, pubkey, createdAt, kind, content, sig);
        if (typeProblem != null) {
            return new Decoded.Malformed(typeProblem);
        }
        long kindValue = (Long) kind;
        if (kindValue < 0 || kindValue > NostrEvent.MAX_KIND) {
            return new Decoded.Malformed(
                    "kind must be between 0 and " + NostrEvent.MAX_KIND + ", got " + kindValue);
        }
        if (!(tags instanceof List<?> tagList)) {
            return new Decoded.Malformed("tags must be an array of arrays, got " + StrictJson.describe(tags));
        }
        List<List<String>> tagValues = new ArrayList<>(tagList.size());
        for (int i = 0; i < tagList.size(); i++) {
            if (!(tagList.get(i) instanceof List<?> tag)) {
                return new Decoded.Malformed("tags[" + i + "] must be an array of strings, got "
                        + StrictJson.describe(tagList.get(i)));
            }
            if (tag.isEmpty()) {
                return new Decoded.Malformed("tags[" + i + "] is empty: a tag has one or more strings");
            }
            List<String> values = new ArrayList<>(tag.size());
            for (int j = 0; j < tag.size(); j++) {
                if (!(tag.get(j) instanceof String value)) {
                    return new Decoded.Malformed("tags[" + i + "][" + j + "] must be a string, got "
                            + StrictJson.describe(tag.get(j)));
                }
                values.add(value);
            }
            tagValues.add(values);
        }
        try {
            return new Decoded.Event(new NostrEvent(
                    new EventId((String) id), new PublicKey((String) pubkey), (Long) createdAt, (int) kindValue,
                    tagValues, (String) content, new Signature((String) sig)));
        } catch (IllegalArgumentException e) {
            return new Decoded.Malformed(e.getMessage());
        }
    }

    private static String firstTypeProblem(
            Object id, Object pubkey, Object createdAt, Object kind, Object content, Object sig) {
        if (!(id instanceof String)) {
            return "id must be a string, got " + StrictJson.describe(id);
        }
        if (!(pubkey instanceof String)) {
            return "pubkey must be a string, got " + StrictJson.describe(pubkey);
        }
        if (!(createdAt instanceof Long)) {
            return "created_at must be an integer, got " + StrictJson.describe(createdAt);
        }
        if (!(kind instanceof Long)) {
            return "kind must be an integer, got " + StrictJson.describe(kind);
        }
        if (!(content instanceof String)) {
            return "content must be a string, got " + StrictJson.describe(content);
        }
        if (!(sig instanceof String)) {
            return "sig must be a string, got " + StrictJson.describe(sig);
        }
        return null;
    }

    /** The event as a JSON object value (fields in NIP-01 order), for embedding in a larger document. */
    public static Map<String, Object> toJson(NostrEvent event) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("id", event.id().hex());
        object.put("pubkey", event.pubkey().hex());
        object.put("created_at", event.createdAt());
        object.put("kind", (long) event.kind());
        object.put("tags", event.tags());
        object.put("content", event.content());
        object.put("sig", event.sig().hex());
        return object;
    }

    /** The event as compact wire JSON with NIP-01 string escaping; {@link #read(String)} reads it back equal. */
    public static String write(NostrEvent event) {
        return StrictJson.write(toJson(event));
    }
}

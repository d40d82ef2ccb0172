package buzz.scheduled.adapters.relay;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The valid signed events of the conformance vectors ({@code vectors/nostr-events.jsonl}), by name. */
final class VectorEvents {
    private static final Map<String, NostrEvent> VALID = load();

    private VectorEvents() {
    }

    /** Every valid event, in file order. */
    static Map<String, NostrEvent> valid() {
        return VALID;
    }

    /** The valid event named {@code name}. */
    static NostrEvent named(String name) {
        NostrEvent event = VALID.get(name);
        if (event == null) {
            throw new IllegalArgumentException("no valid vector named " + name + "; have " + VALID.keySet());
        }
        return event;
    }

    private static Map<String, NostrEvent> load() {
        ObjectMapper json = new ObjectMapper();
        Map<String, NostrEvent> events = new LinkedHashMap<>();
        try (InputStream in = VectorEvents.class.getResourceAsStream("/vectors/nostr-events.jsonl")) {
            if (in == null) {
                throw new IllegalStateException("vectors/nostr-events.jsonl is missing from the test resources");
            }
            // Split on \n only: some lines hold a raw U+2028.
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                JsonNode row = json.readTree(line);
                if (row.path("valid").asBoolean(false) && row.path("event").isObject()) {
                    events.put(row.get("name").asText(), event(row.get("event")));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return java.util.Collections.unmodifiableMap(events);
    }

    private static NostrEvent event(JsonNode node) {
        List<List<String>> tags = new ArrayList<>();
        for (JsonNode tag : node.get("tags")) {
            List<String> values = new ArrayList<>();
            tag.forEach(value -> values.add(value.textValue()));
            tags.add(values);
        }
        return new NostrEvent(new EventId(node.get("id").textValue()), new PublicKey(node.get("pubkey").textValue()),
                node.get("created_at").longValue(), node.get("kind").intValue(), tags,
                node.get("content").textValue(), new Signature(node.get("sig").textValue()));
    }
}

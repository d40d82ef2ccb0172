package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.ScheduleBatchUseCase;
import buzz.scheduled.application.port.in.ScheduleBatchUseCase.BatchItem;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.StrictJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the batch envelope {@code {"events":[{…}…],"series":false,"idempotency_keys":[…]}} with the domain's strict
 * reader (NIP-01). The envelope is all or nothing: a body that is not strict JSON, not an object, has other members,
 * no {@code events} array, an empty one, a {@code series} that is not a boolean, or {@code idempotency_keys} that is not
 * an array of the events' length holding {@code null} or 1–255 printable ASCII characters is one
 * {@code 400 invalid_request}; more than {@value ScheduleBatchUseCase#MAX_EVENTS} events is one {@code 413 too_large}.
 * Within a good envelope each event is its own item: one that is not a well-formed NIP-01 event becomes a
 * {@link BatchItem.Malformed} item, answered {@code invalid_event} in its place while the others go on.
 */
final class BatchBody {
    private static final Set<String> MEMBERS = Set.of("events", "series", "idempotency_keys");

    private BatchBody() {
    }

    /** What a body held. */
    sealed interface Read {
        /** A good envelope: its items in order and whether they form a series. */
        record Batch(List<BatchItem> items, boolean series) implements Read {
        }

        /** Refused whole, with the answer to give. */
        record Bad(Answer.Problem problem) implements Read {
        }
    }

    /** Reads {@code body}. */
    static Read read(byte[] body) {
        Map<?, ?> object;
        switch (RequestBody.object(body, "{\"events\":[…]}", MEMBERS, "accepted: events, series, idempotency_keys")) {
            case RequestBody.JsonObject.Bad bad -> {
                return new Read.Bad(bad.problem());
            }
            case RequestBody.JsonObject.Members members -> object = members.members();
        }
        if (!(object.get("events") instanceof List<?> events)) {
            return bad(object.containsKey("events") ? "\"events\" must be an array of signed events, got "
                    + StrictJson.describe(object.get("events")) : "the request body has no \"events\" array");
        }
        if (events.isEmpty()) {
            return bad("\"events\" is empty; a batch holds 1 to " + ScheduleBatchUseCase.MAX_EVENTS + " events");
        }
        if (events.size() > ScheduleBatchUseCase.MAX_EVENTS) {
            return new Read.Bad(new Answer.Problem(413, "too_large", "the batch has " + events.size()
                    + " events; at most " + ScheduleBatchUseCase.MAX_EVENTS + " are accepted in one request"));
        }
        boolean series = false;
        if (object.containsKey("series")) {
            if (!(object.get("series") instanceof Boolean flag)) {
                return bad("\"series\" must be true or false, got " + StrictJson.describe(object.get("series")));
            }
            series = flag;
        }
        List<Optional<String>> keys = new ArrayList<>(events.size());
        if (object.containsKey("idempotency_keys")) {
            if (!(object.get("idempotency_keys") instanceof List<?> given) || given.size() != events.size()) {
                return bad("\"idempotency_keys\" must be an array with one entry per event (" + events.size()
                        + "), each null or a key; got " + StrictJson.describe(object.get("idempotency_keys")));
            }
            for (int i = 0; i < given.size(); i++) {
                Object key = given.get(i);
                if (key == null) {
                    keys.add(Optional.empty());
                    continue;
                }
                if (!(key instanceof String text)) {
                    return bad("idempotency_keys[" + i + "] must be null or a string, got " + StrictJson.describe(key));
                }
                Optional<String> wrong = IdempotencyKeys.problem("idempotency_keys[" + i + "]", text, "give null");
                if (wrong.isPresent()) {
                    return bad(wrong.get());
                }
                keys.add(Optional.of(text));
            }
        } else {
            events.forEach(event -> keys.add(Optional.empty()));
        }
        List<BatchItem> items = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            items.add(switch (NostrEventJson.fromJson(events.get(i))) {
                case NostrEventJson.Decoded.Malformed malformed -> new BatchItem.Malformed(malformed.reason());
                case NostrEventJson.Decoded.Event event -> new BatchItem.Signed(event.event(), keys.get(i));
            });
        }
        return new Read.Batch(items, series);
    }

    private static Read bad(String message) {
        return new Read.Bad(Answer.Problem.invalidRequest(message));
    }
}

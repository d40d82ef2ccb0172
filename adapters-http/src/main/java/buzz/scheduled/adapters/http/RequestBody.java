package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.StrictJson;
import java.util.Map;

/**
 * Reads the owner routes' request envelope {@code {"event":{…}}} with the domain's strict reader (NIP-01):
 * a body that is not strict JSON, not an object, or has members other than {@code event} is
 * {@code 400 invalid_request}; an {@code event} that is not a well-formed NIP-01 event is {@code 400 invalid_event}.
 */
final class RequestBody {
    private RequestBody() {
    }

    /** What a body held. */
    sealed interface Envelope {
        /** A well-formed event (signature not yet checked). */
        record WithEvent(NostrEvent event) implements Envelope {
        }

        /** No body at all (only where the route allows it). */
        record Empty() implements Envelope {
        }

        /** Refused, with the answer to give. */
        record Bad(Answer.Problem problem) implements Envelope {
        }
    }

    /**
     * Reads {@code body}.
     *
     * @param eventRequired whether an empty body or one without {@code event} is refused (create, edit) or
     *                      means "no event" (send now)
     */
    static Envelope read(byte[] body, boolean eventRequired) {
        if (body.length == 0 || isBlank(body)) {
            return eventRequired
                    ? bad("the request body is empty; send {\"event\":{…}} with the signed event")
                    : new Envelope.Empty();
        }
        Object json;
        switch (StrictJson.parse(body)) {
            case StrictJson.Parsed.Malformed malformed -> {
                return bad("the request body is not valid JSON: " + malformed.reason());
            }
            case StrictJson.Parsed.Value value -> json = value.value();
        }
        if (!(json instanceof Map<?, ?> object)) {
            return bad("the request body must be a JSON object {\"event\":{…}}, got " + StrictJson.describe(json));
        }
        for (Object key : object.keySet()) {
            if (!"event".equals(key)) {
                return bad("unknown member \"" + key + "\" in the request body; only \"event\" is accepted");
            }
        }
        if (!object.containsKey("event")) {
            return eventRequired
                    ? bad("the request body has no \"event\" member")
                    : new Envelope.Empty();
        }
        return switch (NostrEventJson.fromJson(object.get("event"))) {
            case NostrEventJson.Decoded.Malformed malformed ->
                    new Envelope.Bad(Answer.Problem.invalidEvent("the event is malformed: " + malformed.reason()));
            case NostrEventJson.Decoded.Event event -> new Envelope.WithEvent(event.event());
        };
    }

    private static Envelope bad(String message) {
        return new Envelope.Bad(Answer.Problem.invalidRequest(message));
    }

    private static boolean isBlank(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return false;
            }
        }
        return true;
    }
}

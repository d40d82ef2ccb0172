package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.StrictJson;
import java.util.Map;
import java.util.Set;

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
        Map<?, ?> object;
        switch (object(body, "{\"event\":{…}}", Set.of("event"), "only \"event\" is accepted")) {
            case JsonObject.Bad bad -> {
                return new Envelope.Bad(bad.problem());
            }
            case JsonObject.Members members -> object = members.members();
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

    /** A body read as one strict JSON object: its members, or the answer refusing it. */
    sealed interface JsonObject {
        /** The object's members (only known names). */
        record Members(Map<?, ?> members) implements JsonObject {
        }

        /** Not strict JSON, not an object, or a member of another name: {@code 400 invalid_request}. */
        record Bad(Answer.Problem problem) implements JsonObject {
        }
    }

    /**
     * Reads {@code body} as one strict JSON object (NIP-01's reader: duplicate keys refused) whose member names are
     * all in {@code members}.
     *
     * @param shape    the expected object as the refusal shows it, e.g. {@code {"event":{…}}}
     * @param accepted how the refusal of an unknown member names the accepted ones
     */
    static JsonObject object(byte[] body, String shape, Set<String> members, String accepted) {
        Object json;
        switch (StrictJson.parse(body)) {
            case StrictJson.Parsed.Malformed malformed -> {
                return new JsonObject.Bad(Answer.Problem.invalidRequest("the request body is not valid JSON: "
                        + malformed.reason()));
            }
            case StrictJson.Parsed.Value value -> json = value.value();
        }
        if (!(json instanceof Map<?, ?> object)) {
            return new JsonObject.Bad(Answer.Problem.invalidRequest("the request body must be a JSON object " + shape
                    + ", got " + StrictJson.describe(json)));
        }
        for (Object key : object.keySet()) {
            if (!members.contains(key)) {
                return new JsonObject.Bad(Answer.Problem.invalidRequest("unknown member \"" + key
                        + "\" in the request body; " + accepted));
            }
        }
        return new JsonObject.Members(object);
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

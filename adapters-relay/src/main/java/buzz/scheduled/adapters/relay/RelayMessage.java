package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.StrictJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

/**
 * A message from relay to client (NIP-01, NIP-42): {@code OK}, {@code AUTH}, {@code NOTICE}, and for subscriptions
 * {@code EVENT}, {@code EOSE} and {@code CLOSED}; any other type is {@link Other}. The one reader of relay messages:
 * {@link RelayConnection} parses every text frame here once and hands the result to the publishing client and to
 * the NIP-29 group feed.
 */
public sealed interface RelayMessage {

    /** Reads the envelope of every message (immutable and thread-safe). */
    ObjectReader JSON = new ObjectMapper().reader();

    /**
     * {@code ["OK", <event id>, <true|false>, <message>]}.
     *
     * @param eventId  the id the relay answers for, as sent (not validated: we only match it)
     * @param accepted the relay's boolean
     * @param message  the relay's message, {@code ""} when absent, cut to {@link #MAX_WORDS} characters
     */
    record Ok(String eventId, boolean accepted, String message) implements RelayMessage {
        public Ok {
            message = bounded(message);
        }

        /**
         * The machine-readable prefix of {@link #message()} (NIP-01: a single word before the first colon),
         * or {@code ""} when the message has none.
         */
        String prefix() {
            int colon = message.indexOf(':');
            if (colon <= 0) {
                return "";
            }
            String word = message.substring(0, colon);
            return word.chars().allMatch(c -> (c >= 'a' && c <= 'z') || c == '-') ? word : "";
        }

        /** The message without its prefix, trimmed. */
        String text() {
            String prefix = prefix();
            return prefix.isEmpty() ? message.trim() : message.substring(prefix.length() + 1).trim();
        }

        /** Whether the relay wants NIP-42 AUTH before it takes this event. */
        boolean authRequired() {
            return !accepted && prefix().equals("auth-required");
        }

        /** Whether the relay refused the event for now because it is sent too fast ({@code rate-limited:}). */
        boolean rateLimited() {
            return !accepted && prefix().equals("rate-limited");
        }

        /**
         * true or duplicate → published; invalid/pow/blocked/restricted → rejected; else transient (NIP-01). A
         * {@code duplicate:} answer is published whatever its flag says: some relays answer
         * {@code ["OK",<id>,false,"duplicate: …"]} for an event they already hold, and that event is on the relay.
         */
        PublishResult toPublishResult() {
            String prefix = prefix();
            if (accepted || prefix.equals("duplicate")) {
                return new PublishResult.Published(prefix.equals("duplicate"), message);
            }
            if (PublishResult.Rejected.PREFIXES.contains(prefix)) {
                return new PublishResult.Rejected(prefix, text());
            }
            return new PublishResult.Transient(message.isBlank() ? "unknown: OK false without a message" : message);
        }
    }

    /** {@code ["AUTH", <challenge>]} (NIP-42). */
    record Auth(String challenge) implements RelayMessage {
    }

    /** {@code ["NOTICE", <message>]}, the message cut to {@link #MAX_WORDS} characters. */
    record Notice(String message) implements RelayMessage {
        public Notice {
            message = bounded(message);
        }
    }

    /**
     * {@code ["EVENT", <subscription id>, <event>]}: an event a subscription matched.
     *
     * @param subscription the subscription id, as we sent it
     * @param event        the event read strictly ({@link NostrEventJson}, NIP-01 field shapes), or why it is
     *                     malformed; its id and signature are not checked here
     */
    record Event(String subscription, NostrEventJson.Decoded event) implements RelayMessage {
        /** The well-formed event's id (64 lowercase hex), or {@code ""} when the event is malformed. */
        public String eventId() {
            return event instanceof NostrEventJson.Decoded.Event decoded ? decoded.event().id().hex() : "";
        }
    }

    /** {@code ["EOSE", <subscription id>]}: the stored events matching the subscription have all been sent. */
    record EndOfStoredEvents(String subscription) implements RelayMessage {
    }

    /**
     * {@code ["CLOSED", <subscription id>, <message>]}: the relay ended or refused the subscription; the message cut
     * to {@link #MAX_WORDS} characters.
     */
    record Closed(String subscription, String message) implements RelayMessage {
        public Closed {
            message = bounded(message);
        }
    }

    /**
     * Most characters kept of a relay's words in {@code OK}, {@code NOTICE} and {@code CLOSED}: they are logged and
     * stored as a message's last error, and a hostile relay must not fill the disk with them. Longer ones keep their
     * start (the NIP-01 prefix) and say how much was cut.
     */
    int MAX_WORDS = 512;

    /** {@code words} cut to {@link #MAX_WORDS} characters (never inside a surrogate pair), null as it is. */
    static String bounded(String words) {
        if (words == null || words.length() <= MAX_WORDS) {
            return words;
        }
        int end = Character.isHighSurrogate(words.charAt(MAX_WORDS - 1)) ? MAX_WORDS - 1 : MAX_WORDS;
        return words.substring(0, end) + "… (" + (words.length() - end) + " more characters)";
    }

    /** Any other well-formed array (unknown types). */
    record Other(String type) implements RelayMessage {
    }

    /**
     * Reads one relay message.
     *
     * @throws IllegalArgumentException when {@code text} is not a JSON array starting with a string, or a known
     *                                  message type has the wrong shape (the message says which)
     */
    static RelayMessage parse(String text) {
        Ok answer = compactOk(text);
        return answer != null ? answer : parseTree(text);
    }

    /**
     * The answer to every published frame, {@code ["OK","<id>",true|false,"<message>"]} (or without the message),
     * written compactly and with no escape or control character in its strings, read without building a JSON tree;
     * null for anything else, which {@link #parseTree} reads. Both readings give the same result for the text this
     * one accepts.
     */
    static Ok compactOk(String text) {
        String start = "[\"OK\",\"";
        if (!text.startsWith(start)) {
            return null;
        }
        int idEnd = text.indexOf('"', start.length());
        if (idEnd < 0) {
            return null;
        }
        String id = text.substring(start.length(), idEnd);
        int at = idEnd + 1;
        if (!text.startsWith(",", at)) {
            return null;
        }
        at++;
        boolean accepted;
        if (text.startsWith("true", at)) {
            accepted = true;
            at += 4;
        } else if (text.startsWith("false", at)) {
            accepted = false;
            at += 5;
        } else {
            return null;
        }
        String message;
        if (at == text.length() - 1 && text.charAt(at) == ']') {
            message = "";
        } else {
            int end = text.length() - 2;
            if (!text.startsWith(",\"", at) || end < at + 2 || !text.startsWith("\"]", end)) {
                return null;
            }
            message = text.substring(at + 2, end);
        }
        return plain(id) && plain(message) ? new Ok(id, accepted, message) : null;
    }

    /** Whether {@code value} needs no JSON unescaping: no quote, backslash or control character. */
    private static boolean plain(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20) {
                return false;
            }
        }
        return true;
    }

    /** The general reading: a JSON tree of any relay message. */
    static RelayMessage parseTree(String text) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("relay message is not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isArray() || root.isEmpty() || !root.get(0).isTextual()) {
            throw new IllegalArgumentException("relay message is not an array starting with its type");
        }
        String type = root.get(0).textValue();
        return switch (type) {
            case "OK" -> {
                if (root.size() < 3 || !root.get(1).isTextual() || !root.get(2).isBoolean()
                        || (root.size() > 3 && !root.get(3).isTextual())) {
                    throw new IllegalArgumentException("OK must be [\"OK\", <id>, <bool>, <message>]");
                }
                yield new Ok(root.get(1).textValue(), root.get(2).booleanValue(),
                        root.size() > 3 ? root.get(3).textValue() : "");
            }
            case "AUTH" -> {
                if (root.size() < 2 || !root.get(1).isTextual()) {
                    throw new IllegalArgumentException("AUTH must be [\"AUTH\", <challenge string>]");
                }
                yield new Auth(root.get(1).textValue());
            }
            case "NOTICE" -> new Notice(root.size() > 1 && root.get(1).isTextual() ? root.get(1).textValue() : "");
            case "EVENT" -> {
                if (root.size() < 3 || !root.get(1).isTextual() || !root.get(2).isObject()) {
                    throw new IllegalArgumentException("EVENT must be [\"EVENT\", <subscription id>, <event>]");
                }
                yield new Event(root.get(1).textValue(), strictEvent(text));
            }
            case "EOSE" -> {
                if (root.size() < 2 || !root.get(1).isTextual()) {
                    throw new IllegalArgumentException("EOSE must be [\"EOSE\", <subscription id>]");
                }
                yield new EndOfStoredEvents(root.get(1).textValue());
            }
            case "CLOSED" -> {
                if (root.size() < 2 || !root.get(1).isTextual()) {
                    throw new IllegalArgumentException("CLOSED must be [\"CLOSED\", <subscription id>, <message>]");
                }
                yield new Closed(root.get(1).textValue(),
                        root.size() > 2 && root.get(2).isTextual() ? root.get(2).textValue() : "");
            }
            default -> new Other(type);
        };
    }

    /**
     * The third element of an {@code EVENT} message read again with {@link StrictJson}: Jackson's tree has already
     * folded duplicate keys and unpaired surrogates that a strict reading of an event must refuse.
     */
    private static NostrEventJson.Decoded strictEvent(String text) {
        return switch (StrictJson.parse(text)) {
            case StrictJson.Parsed.Malformed malformed -> new NostrEventJson.Decoded.Malformed(malformed.reason());
            case StrictJson.Parsed.Value value -> value.value() instanceof java.util.List<?> array && array.size() > 2
                    ? NostrEventJson.fromJson(array.get(2))
                    : new NostrEventJson.Decoded.Malformed("EVENT has no event");
        };
    }
}

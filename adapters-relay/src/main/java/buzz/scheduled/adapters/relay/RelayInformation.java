package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.RelayLimits.Limitation;
import buzz.scheduled.domain.nostr.PublicKey;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * What the sidecar reads from the relay's NIP-11 information document: an HTTP GET of the relay URL (ws→http,
 * wss→https) with {@code Accept: application/nostr+json}.
 *
 * @param self       {@code self}: the relay's own key, which signs what the relay publishes itself (NIP-29 group
 *                   state); empty when absent or not 64 lowercase hex characters
 * @param pubkey     {@code pubkey}: the operator's contact key (not the key group state is signed with); empty when
 *                   absent or malformed
 * @param limitation the {@code limitation} fields the sidecar acts on; a number that is absent, not an integer, 0 or
 *                   negative is empty (no limit), a flag that is absent or not a boolean is false
 */
public record RelayInformation(Optional<PublicKey> self, Optional<PublicKey> pubkey, Limitation limitation) {
    private static final Pattern PUBKEY = Pattern.compile("[0-9a-f]{64}");
    private static final ObjectMapper JSON = new ObjectMapper();

    public RelayInformation {
        if (self == null || pubkey == null || limitation == null) {
            throw new IllegalArgumentException("relay information parts must be present or empty, not null");
        }
    }

    /** What reading the document gave. */
    public sealed interface Answer {
        /** The document, read. */
        record Read(RelayInformation information) implements Answer {
        }

        /** Why there is none: unreachable, not HTTP 200, not a JSON object. */
        record Unreadable(String why) implements Answer {
        }
    }

    /** The HTTP URL of the NIP-11 document for a {@code ws://} or {@code wss://} relay URL. */
    public static URI documentUrl(URI relay) {
        String scheme = switch (relay.getScheme()) {
            case "ws" -> "http";
            case "wss" -> "https";
            default -> throw new IllegalArgumentException("relay url must be ws:// or wss://, got " + relay);
        };
        try {
            return new URI(scheme, relay.getRawAuthority(), relay.getRawPath() == null || relay.getRawPath().isEmpty()
                    ? "/" : relay.getRawPath(), null, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cannot make a NIP-11 URL from " + relay + ": " + e.getMessage(), e);
        }
    }

    /**
     * Fetches and reads the document of {@code relay}; never throws for an unreachable or odd relay.
     *
     * @param client  an HTTP/1.1 client (an HTTP/2 upgrade offer can upset a WebSocket server)
     * @param timeout for the whole request
     */
    public static Answer fetch(HttpClient client, URI relay, Duration timeout) {
        URI url = documentUrl(relay);
        HttpResponse<String> response;
        try {
            response = client.send(HttpRequest.newBuilder(url).timeout(timeout)
                    .header("Accept", "application/nostr+json").GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return new Answer.Unreadable("cannot read the relay's NIP-11 document at " + url + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer.Unreadable("interrupted while reading the relay's NIP-11 document at " + url);
        }
        if (response.statusCode() != 200) {
            return new Answer.Unreadable("the relay's NIP-11 document at " + url + " answered HTTP "
                    + response.statusCode());
        }
        return parse(url, response.body());
    }

    /** Reads a document's text; {@code url} is named in the answer when it is not a JSON object. */
    static Answer parse(URI url, String body) {
        JsonNode document;
        try {
            document = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            document = null;
        }
        if (document == null || !document.isObject()) {
            return new Answer.Unreadable("the relay's NIP-11 document at " + url + " is not a JSON object");
        }
        JsonNode limitation = document.path("limitation");
        return new Answer.Read(new RelayInformation(key(document.get("self")), key(document.get("pubkey")),
                new Limitation(count(limitation.get("max_message_length")), count(limitation.get("max_content_length")),
                        count(limitation.get("max_limit")), seconds(limitation.get("created_at_lower_limit")),
                        seconds(limitation.get("created_at_upper_limit")), count(limitation.get("max_event_tags")),
                        count(limitation.get("min_pow_difficulty")), flag(limitation.get("auth_required")),
                        flag(limitation.get("restricted_writes")))));
    }

    private static Optional<PublicKey> key(JsonNode value) {
        return value != null && value.isTextual() && PUBKEY.matcher(value.textValue()).matches()
                ? Optional.of(new PublicKey(value.textValue())) : Optional.empty();
    }

    private static OptionalInt count(JsonNode value) {
        return value != null && value.canConvertToInt() && value.isIntegralNumber() && value.intValue() >= 0
                ? OptionalInt.of(value.intValue()) : OptionalInt.empty();
    }

    private static boolean flag(JsonNode value) {
        return value != null && value.isBoolean() && value.booleanValue();
    }

    private static OptionalLong seconds(JsonNode value) {
        return value != null && value.canConvertToLong() && value.isIntegralNumber() && value.longValue() >= 0
                ? OptionalLong.of(value.longValue()) : OptionalLong.empty();
    }
}

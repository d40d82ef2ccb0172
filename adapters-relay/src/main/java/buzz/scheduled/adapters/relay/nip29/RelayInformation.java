package buzz.scheduled.adapters.relay.nip29;

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
import java.util.regex.Pattern;

/**
 * Reads the relay's pubkey from its NIP-11 information document: an HTTP GET of the relay URL (ws→http,
 * wss→https) with {@code Accept: application/nostr+json}, field {@code pubkey}.
 */
final class RelayInformation {
    private static final Pattern PUBKEY = Pattern.compile("[0-9a-f]{64}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private RelayInformation() {
    }

    /** What the document said. */
    sealed interface Answer {
        /** The relay's pubkey. */
        record Pubkey(PublicKey pubkey) implements Answer {
        }

        /** Why there is none: unreachable, not a document, no or malformed {@code pubkey}. */
        record Missing(String why) implements Answer {
        }
    }

    /** The HTTP URL of the NIP-11 document for a {@code ws://} or {@code wss://} relay URL. */
    static URI documentUrl(URI relay) {
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

    /** Fetches the document and reads {@code pubkey}; never throws for an unreachable or odd relay. */
    static Answer pubkey(HttpClient client, URI relay, Duration timeout) {
        URI url = documentUrl(relay);
        HttpResponse<String> response;
        try {
            response = client.send(HttpRequest.newBuilder(url).timeout(timeout)
                    .header("Accept", "application/nostr+json").GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return new Answer.Missing("cannot read the relay's NIP-11 document at " + url + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer.Missing("interrupted while reading the relay's NIP-11 document");
        }
        if (response.statusCode() != 200) {
            return new Answer.Missing("the relay's NIP-11 document at " + url + " answered HTTP "
                    + response.statusCode());
        }
        JsonNode document;
        try {
            document = JSON.readTree(response.body());
        } catch (JsonProcessingException e) {
            return new Answer.Missing("the relay's NIP-11 document at " + url + " is not JSON");
        }
        JsonNode pubkey = document == null ? null : document.get("pubkey");
        if (pubkey == null || !pubkey.isTextual() || !PUBKEY.matcher(pubkey.textValue()).matches()) {
            return new Answer.Missing("the relay's NIP-11 document at " + url
                    + " has no \"pubkey\" of 64 lowercase hex characters; set the relay pubkey in the configuration");
        }
        return new Answer.Pubkey(new PublicKey(pubkey.textValue()));
    }
}

package buzz.scheduled.adapters.http.access;

import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.RefusalCode;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code http} access policy ({@code BUZZ_ACCESS_POLICY=http}): asks an operator's callback at admission and
 * at delivery.
 *
 * <p>Request: {@code POST BUZZ_ACCESS_URL} with {@code Content-Type: application/json} and body
 * {@code {"pubkey":"<64 hex>","channel":"<h tag>","kind":<int>}}. Answer: {@code 200} with
 * {@code {"allowed":true}} or {@code {"allowed":false,"reason":"<code>","message":"<optional sentence>"}}, where
 * {@code reason} is one of {@code channel_not_found}, {@code is_archived}, {@code not_in_channel},
 * {@code restricted} (any other reason is treated as {@code restricted}, keeping the text in the message).
 *
 * <p>Everything else — a timeout, a refused connection, a {@code 5xx}, any other status, or a {@code 200} whose
 * body is not such an object — is "unavailable": admission answers {@code 503} and delivery retries. The policy
 * never guesses.
 */
public final class CallbackAccessPolicy implements AccessPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackAccessPolicy.class);
    private static final Map<String, RefusalCode> REASONS = Map.of(
            "channel_not_found", RefusalCode.CHANNEL_NOT_FOUND,
            "is_archived", RefusalCode.IS_ARCHIVED,
            "not_in_channel", RefusalCode.NOT_IN_CHANNEL,
            "restricted", RefusalCode.RESTRICTED);
    /** Longest answer body read; a decision is a few dozen bytes. */
    private static final int MAX_ANSWER_BYTES = 16 * 1024;

    private final CallbackSettings settings;
    private final HttpClient client;
    private final ObjectMapper json = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .build();

    /** A policy with its own HTTP client (HTTP/1.1, connect timeout = the settings' timeout). */
    public CallbackAccessPolicy(CallbackSettings settings) {
        this(settings, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.timeout()).followRedirects(HttpClient.Redirect.NEVER).build());
    }

    /** A policy over a given client (tests, shared clients). */
    public CallbackAccessPolicy(CallbackSettings settings, HttpClient client) {
        if (settings == null || client == null) {
            throw new IllegalArgumentException("the access callback needs settings and an HTTP client");
        }
        this.settings = settings;
        this.client = client;
    }

    @Override
    public AccessDecision check(PublicKey owner, Channel channel, int kind) {
        ObjectNode question = json.createObjectNode();
        question.put("pubkey", owner.hex());
        question.put("channel", channel.value());
        question.put("kind", kind);
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.url())
                .timeout(settings.timeout())
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(question.toString()));
        settings.authorization().ifPresent(value -> request.header("Authorization", value));
        HttpResponse<byte[]> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            return unavailable("the access callback did not answer within " + settings.timeout().toMillis() + " ms");
        } catch (IOException e) {
            return unavailable("the access callback could not be reached: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unavailable("interrupted while asking the access callback");
        }
        if (response.statusCode() != 200) {
            return unavailable("the access callback answered HTTP " + response.statusCode()
                    + (response.statusCode() >= 500 ? "" : " (only 200 with a decision counts)"));
        }
        return decision(response.body());
    }

    private AccessDecision decision(byte[] body) {
        if (body.length > MAX_ANSWER_BYTES) {
            return unavailable("the access callback's answer is " + body.length + " bytes, more than "
                    + MAX_ANSWER_BYTES);
        }
        JsonNode answer;
        try {
            answer = json.readTree(body);
        } catch (JsonProcessingException e) {
            return unavailable("the access callback's answer is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return unavailable("the access callback's answer could not be read: " + e);
        }
        if (answer == null || !answer.isObject()) {
            return unavailable("the access callback's answer is not a JSON object");
        }
        JsonNode allowed = answer.get("allowed");
        if (allowed == null || !allowed.isBoolean()) {
            return unavailable("the access callback's answer has no boolean \"allowed\"");
        }
        if (allowed.booleanValue()) {
            return new AccessDecision.Allowed();
        }
        JsonNode reason = answer.get("reason");
        JsonNode message = answer.get("message");
        String reasonText = reason != null && reason.isTextual() ? reason.textValue() : "";
        RefusalCode code = REASONS.getOrDefault(reasonText, RefusalCode.RESTRICTED);
        String text = message != null && message.isTextual() && !message.textValue().isBlank()
                ? message.textValue()
                : reasonText.isEmpty() || REASONS.containsKey(reasonText)
                        ? "the access policy denied posting here (" + code.wireName() + ")"
                        : "the access policy denied posting here: " + reasonText;
        return new AccessDecision.Denied(code, text);
    }

    private static AccessDecision unavailable(String why) {
        LOG.warn("access callback unavailable: {}", why);
        return new AccessDecision.Unavailable(why);
    }
}

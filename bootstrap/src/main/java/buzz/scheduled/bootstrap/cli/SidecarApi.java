package buzz.scheduled.bootstrap.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;

/**
 * The owner API of a running sidecar (docs/openapi.yaml) over HTTP, every request with a fresh NIP-98
 * {@code Authorization} header for {@code base} + path + query, which must be the sidecar's {@code PUBLIC_BASE_URL}.
 * A connection that cannot be made or an answer that does not come within the timeout is an
 * {@link ClientCommands#EXIT_UNREACHABLE} failure; every answer is returned as it came.
 */
final class SidecarApi implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

    private final String base;
    private final Nip98Authorization authorization;
    private final InstantSource clock;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

    /**
     * @param base          absolute http(s) URL without a trailing slash, query or fragment
     * @param authorization signs the NIP-98 header of each request
     * @param clock         the {@code created_at} of each header
     */
    SidecarApi(String base, Nip98Authorization authorization, InstantSource clock) {
        this.base = base;
        this.authorization = authorization;
        this.clock = clock;
    }

    /**
     * An answer: status, the {@code ETag} and {@code Retry-After} headers, the body text, and the body parsed when
     * it is a JSON object.
     */
    record Answer(String method, String url, int status, Optional<String> etag, Optional<String> retryAfter,
                  String contentType, String text, Optional<JsonNode> json) {

        /** The body as the item, page or summary the API promises on success. */
        JsonNode body() {
            return json.orElseThrow();
        }

        /** The API's error code ({@code {"error","message"}}), when this answer is one. */
        Optional<String> error() {
            return json.map(node -> node.get("error")).filter(JsonNode::isTextual).map(JsonNode::asText);
        }

        /**
         * This answer when it is a success (2xx with a JSON object); otherwise the failure it stands for: the
         * API's refusal ({@link ClientCommands#EXIT_REFUSED}, or {@link ClientCommands#EXIT_UNREACHABLE} for
         * {@code 503}), or an answer that is not the API's ({@link ClientCommands#EXIT_FAILED}).
         */
        Answer requireSuccess() {
            if (status >= 200 && status < 300 && json.isPresent()) {
                return this;
            }
            Optional<String> code = error();
            Optional<String> message = json.map(node -> node.get("message")).filter(JsonNode::isTextual)
                    .map(JsonNode::asText);
            if (status >= 400 && code.isPresent() && message.isPresent()) {
                String refusal = "HTTP " + status + " " + code.get() + ": " + message.get();
                if (status == 503) {
                    throw new ClientFailure(ClientCommands.EXIT_UNREACHABLE, "the sidecar is unavailable (" + refusal
                            + ")" + retryAfter.map(seconds -> "; try again in " + seconds + " s").orElse(""),
                            Optional.of(text));
                }
                String hint = status == 401 ? " (the u tag must be the sidecar's PUBLIC_BASE_URL + path: check --url"
                        + " or BUZZ_URL; the clock must be within 60 s of the sidecar's)" : "";
                throw new ClientFailure(ClientCommands.EXIT_REFUSED, "refused: " + refusal + hint, Optional.of(text));
            }
            String shown = text.length() > 200 ? text.substring(0, 200) + "..." : text;
            throw new ClientFailure(ClientCommands.EXIT_FAILED, "unexpected answer to " + method + " " + url
                    + ": HTTP " + status + (contentType.isEmpty() ? "" : " " + contentType)
                    + (shown.isBlank() ? "" : ": " + shown.strip()) + " (is --url the sidecar?)");
        }
    }

    /** {@code GET} {@code pathAndQuery}. */
    Answer get(String pathAndQuery) {
        return send("GET", pathAndQuery, new byte[0], Map.of());
    }

    /**
     * Sends one request.
     *
     * @param body    the exact bytes to send and hash (empty: no body)
     * @param headers extra headers, e.g. {@code If-Match}
     * @throws ClientFailure {@link ClientCommands#EXIT_UNREACHABLE} when no answer arrives
     */
    Answer send(String method, String pathAndQuery, byte[] body, Map<String, String> headers) {
        String url = base + pathAndQuery;
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(ANSWER_TIMEOUT)
                .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Accept", "application/json")
                .header("Authorization", authorization.header(method, url, body, clock.instant().getEpochSecond()));
        if (body.length > 0) {
            request.header("Content-Type", "application/json");
        }
        headers.forEach(request::header);
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            throw new ClientFailure(ClientCommands.EXIT_UNREACHABLE, "the sidecar at " + base + " did not answer "
                    + method + " " + pathAndQuery + " in time (" + e.getMessage() + ")");
        } catch (ConnectException e) {
            throw new ClientFailure(ClientCommands.EXIT_UNREACHABLE, "cannot connect to the sidecar at " + base
                    + " (is serve running there? check --url or BUZZ_URL)");
        } catch (IOException e) {
            throw new ClientFailure(ClientCommands.EXIT_UNREACHABLE, "cannot reach the sidecar at " + base + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientFailure(ClientCommands.EXIT_FAILED, "interrupted while waiting for the sidecar");
        }
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        return new Answer(method, url, response.statusCode(), response.headers().firstValue("ETag"),
                response.headers().firstValue("Retry-After"), contentType, response.body(), object(response.body()));
    }

    private static Optional<JsonNode> object(String text) {
        try {
            JsonNode node = JSON.readTree(text);
            return node != null && node.isObject() ? Optional.of(node) : Optional.empty();
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        http.close();
    }
}

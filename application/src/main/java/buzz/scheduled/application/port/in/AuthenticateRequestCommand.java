package buzz.scheduled.application.port.in;

import java.util.Arrays;
import java.util.Objects;

/**
 * One HTTP request to authenticate with NIP-98.
 *
 * @param method        the HTTP method as received, e.g. {@code POST}
 * @param url           the absolute request URL as the server sees it: {@code PUBLIC_BASE_URL} + path + query
 *                      (what the client must have signed in the {@code u} tag, up to RFC 3986 §6.2.2
 *                      normalisation)
 * @param body          the raw request body bytes, empty when there is none (copied)
 * @param authorization the {@code Authorization} header value, {@code null} when the header is absent
 * @throws IllegalArgumentException when method or url is blank or body is null
 */
public record AuthenticateRequestCommand(String method, String url, byte[] body, String authorization) {

    public AuthenticateRequestCommand {
        if (method == null || method.isBlank()) {
            throw new IllegalArgumentException("method is missing");
        }
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("url is missing");
        }
        if (body == null) {
            throw new IllegalArgumentException("body is missing (use an empty array for no body)");
        }
        body = body.clone();
    }

    /** A copy of the raw body bytes. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AuthenticateRequestCommand that
                && method.equals(that.method) && url.equals(that.url) && Arrays.equals(body, that.body)
                && Objects.equals(authorization, that.authorization);
    }

    @Override
    public int hashCode() {
        return Objects.hash(method, url, Arrays.hashCode(body), authorization);
    }

    @Override
    public String toString() {
        return "AuthenticateRequestCommand[" + method + " " + url + ", " + body.length + " body bytes, authorization "
                + (authorization == null ? "absent" : "present") + "]";
    }
}

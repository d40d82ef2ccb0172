package buzz.scheduled.adapters.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * Jetty's answers to requests it refuses before any route runs (headers over the limit: {@code 431}; a malformed
 * request line: {@code 400}; a URI over the limit: {@code 414}) in the API's error shape
 * {@code {"error":"invalid_request","message":…}} instead of an HTML page.
 */
final class JsonErrorPages extends ErrorHandler {
    private final int maxHeaderBytes;

    JsonErrorPages(int maxHeaderBytes) {
        this.maxHeaderBytes = maxHeaderBytes;
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        String message = switch (status) {
            case 431 -> "the request headers are larger than " + maxHeaderBytes + " bytes";
            case 414 -> "the request URI is larger than " + maxHeaderBytes + " bytes";
            default -> "the HTTP request is malformed" + (reason == null ? "" : ": " + reason);
        };
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        String body = "{\"error\":\"invalid_request\",\"message\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"")
                + "\"}";
        return ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8));
    }
}

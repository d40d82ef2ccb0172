package buzz.scheduled.adapters.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's answers to requests it refuses before any route runs (headers over the limit: {@code 431}; a URI over
 * the limit: {@code 414}; a malformed request: {@code 400}) in the API's error shape
 * {@code {"error":"invalid_request","message":…}} instead of an HTML page.
 */
final class JsonErrorPages extends ErrorHandler {
    private final int maxHeaderBytes;

    JsonErrorPages(int maxHeaderBytes) {
        this.maxHeaderBytes = maxHeaderBytes;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = request.getAttribute(ERROR_STATUS) instanceof Integer code ? code : response.getStatus();
        String reason = request.getAttribute(ERROR_MESSAGE) instanceof String text ? text : null;
        String message = switch (status) {
            case 431 -> "the request headers are larger than " + maxHeaderBytes + " bytes";
            case 414 -> "the request URI is larger than " + maxHeaderBytes + " bytes";
            default -> "the HTTP request was refused (" + status + ")" + (reason == null ? "" : ": " + reason);
        };
        String code = status >= 500 ? "internal_error" : "invalid_request";
        String body = "{\"error\":\"" + code + "\",\"message\":\""
                + LogText.escape(message).replace("\"", "\\\"") + "\"}";
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
        return true;
    }
}

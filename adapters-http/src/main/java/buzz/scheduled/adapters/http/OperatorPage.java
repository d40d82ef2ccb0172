package buzz.scheduled.adapters.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The operator page, {@code GET /admin}, and its script and style sheet: three files inside the jar, no external
 * resources. The page is public (it holds no data); every figure it shows comes from the operator routes, which it
 * calls with NIP-98 authorization signed by the browser's NIP-07 signer ({@code window.nostr}).
 */
final class OperatorPage {
    static final String PAGE = "/admin";
    static final String SCRIPT = "/admin/admin.js";
    static final String STYLE = "/admin/admin.css";
    private static final String DIRECTORY = "/buzz/scheduled/adapters/http/admin/";
    /** Only this origin's files, no inline script or style, no framing. */
    private static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final String page;
    private final String script;
    private final String style;

    /** @param publicBaseUrl the prefix the page's NIP-98 {@code u} tags start with ({@code PUBLIC_BASE_URL}) */
    OperatorPage(String publicBaseUrl) {
        this.page = read("index.html").replace("{{PUBLIC_BASE_URL}}", escape(publicBaseUrl));
        this.script = read("admin.js");
        this.style = read("admin.css");
    }

    Answer page() {
        return new Answer.Text(200, "text/html; charset=utf-8", page, headers());
    }

    /**
     * The answer to {@code GET /admin/}: a permanent redirect to {@code ../admin}, relative so that it holds behind a
     * proxy's path prefix. The page's links ({@code admin/admin.js}) are relative to {@code /admin}; under
     * {@code /admin/} they would name {@code /admin/admin/admin.js}.
     */
    static Answer canonical() {
        return new Answer.Empty(308, Map.of("Location", "../admin"));
    }

    Answer script() {
        return new Answer.Text(200, "text/javascript; charset=utf-8", script, headers());
    }

    Answer style() {
        return new Answer.Text(200, "text/css; charset=utf-8", style, headers());
    }

    private static Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Security-Policy", POLICY);
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("Referrer-Policy", "no-referrer");
        headers.put("Cache-Control", "no-cache");
        return headers;
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String read(String name) {
        try (InputStream in = OperatorPage.class.getResourceAsStream(DIRECTORY + name)) {
            if (in == null) {
                throw new IllegalStateException("the operator page's " + name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the operator page's " + name, e);
        }
    }
}

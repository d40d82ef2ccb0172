package buzz.scheduled.adapters.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The documents anyone may read: the NIP-11 style {@link InfoDocument} ({@code GET /v1/info}, and {@code GET /}
 * with {@code Accept: application/nostr+json}) with the CORS headers NIP-11 requires; for a browser at {@code GET /}
 * ({@code Accept} naming {@code text/html}) a small page of links to the operator console, the API description and
 * the probes; else {@code 406 not_acceptable}; and the OpenAPI document this build serves ({@code GET /openapi.yaml},
 * a copy of docs/openapi.yaml).
 */
final class PublicDocuments {
    private static final String OPENAPI_RESOURCE = "/buzz/scheduled/adapters/http/openapi.yaml";
    private static final String NOSTR_JSON = "application/nostr+json";
    /**
     * {@code GET /} for a browser: links relative to the root, so they hold behind a proxy's path prefix; no script,
     * no style but its own.
     */
    private static final String ROOT_PAGE = """
            <!doctype html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>buzz-scheduled-delivery</title>
              <style>body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem;
                line-height: 1.5; color: #1d2330; } code { font-size: .9em; } li { margin: .3rem 0; }</style>
            </head>
            <body>
            <h1>buzz-scheduled-delivery</h1>
            <p>Durable scheduled messages for a Nostr relay. This address is the sidecar's HTTP API.</p>
            <ul>
              <li><a href="admin">Operator console</a> (<code>/admin</code>): sign in with a NIP-07 signer holding
                a key from <code>RELAY_OPERATOR_PUBKEYS</code>.</li>
              <li><a href="openapi.yaml">API description</a> (<code>/openapi.yaml</code>, OpenAPI 3.1): the owner
                routes under <code>/v1/scheduled-messages</code>, NIP-98 signed.</li>
              <li><a href="v1/info">Capabilities</a> (<code>/v1/info</code>, NIP-11; also this address with
                <code>Accept: application/nostr+json</code>).</li>
              <li><a href="healthz">/healthz</a>, <a href="readyz">/readyz</a>, <a href="metrics">/metrics</a>.</li>
            </ul>
            </body>
            </html>
            """;
    private static final String ROOT_PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
            + "form-action 'none'; frame-ancestors 'none'";

    private final HttpSettings settings;
    private final String openApi;
    private volatile ServerIdentity identity = ServerIdentity.of(Optional.empty());
    private volatile Supplier<RelayStatedLimits> relayLimits = () -> RelayStatedLimits.NONE;
    private volatile InfoDocument.NostrFeatures nostrFeatures = InfoDocument.NostrFeatures.NONE;

    /** @throws IllegalStateException when the OpenAPI document is missing from the classpath (a build fault) */
    PublicDocuments(HttpSettings settings) {
        this.settings = settings;
        this.openApi = readOpenApi();
    }

    /** What the NIP-11 document says about this server from now on. */
    void identify(ServerIdentity serverIdentity) {
        this.identity = serverIdentity;
    }

    /** Which Nostr-native features the NIP-11 document advertises from now on. */
    void nostrFeatures(boolean dvm, boolean notices) {
        this.nostrFeatures = new InfoDocument.NostrFeatures(dvm, notices);
    }

    /** Where the relay's stated limits come from from now on. */
    void relayLimits(Supplier<RelayStatedLimits> limits) {
        this.relayLimits = limits;
    }

    /**
     * The NIP-11 document, as {@code application/nostr+json} when the caller accepts it.
     *
     * @param root whether this is {@code GET /}, which answers only {@code Accept: application/nostr+json}
     */
    Answer info(Context ctx, boolean root) {
        String accept = ctx.header("Accept") == null ? "" : ctx.header("Accept").toLowerCase(Locale.ROOT);
        boolean nostrJson = accept.contains(NOSTR_JSON);
        if (root && !nostrJson && accept.contains("text/html")) {
            return new Answer.Text(200, "text/html; charset=utf-8", ROOT_PAGE, Map.of(
                    "Content-Security-Policy", ROOT_PAGE_POLICY, "X-Content-Type-Options", "nosniff",
                    "Cache-Control", "no-cache", "Vary", "Accept"));
        }
        if (root && !nostrJson) {
            return new Answer.Problem(406, "not_acceptable", "GET / answers Accept: application/nostr+json (NIP-11) or"
                    + " text/html (a page of links); the API is under /v1 (see /openapi.yaml), the operator console is"
                    + " /admin");
        }
        Map<String, String> headers = Cors.infoHeaders();
        headers.put("Content-Type", nostrJson ? NOSTR_JSON : "application/json");
        return new Answer.Json(200, InfoDocument.of(settings, identity, relayLimits.get(), nostrFeatures),
                headers);
    }

    /** The OpenAPI document. */
    Answer openApi() {
        return new Answer.Text(200, "application/yaml; charset=utf-8", openApi, Map.of());
    }

    private static String readOpenApi() {
        try (InputStream in = PublicDocuments.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the OpenAPI document " + OPENAPI_RESOURCE
                        + " is missing from the classpath (the build copies docs/openapi.yaml there)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the OpenAPI document", e);
        }
    }
}

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
 * with {@code Accept: application/nostr+json}, else {@code 406 not_acceptable}) with the CORS headers NIP-11
 * requires, and the OpenAPI document this build serves ({@code GET /openapi.yaml}, a copy of docs/openapi.yaml).
 */
final class PublicDocuments {
    private static final String OPENAPI_RESOURCE = "/buzz/scheduled/adapters/http/openapi.yaml";
    private static final String NOSTR_JSON = "application/nostr+json";

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
        String accept = ctx.header("Accept");
        boolean nostrJson = accept != null && accept.toLowerCase(Locale.ROOT).contains(NOSTR_JSON);
        if (root && !nostrJson) {
            return new Answer.Problem(406, "not_acceptable",
                    "GET / answers only Accept: application/nostr+json (NIP-11); the API is under /v1");
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

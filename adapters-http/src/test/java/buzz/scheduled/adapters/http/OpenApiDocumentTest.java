package buzz.scheduled.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** docs/openapi.yaml describes exactly the routes the app serves, and the app serves that very file. */
class OpenApiDocumentTest {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");
    private ApiFixture api;

    @BeforeEach
    void start() {
        api = new ApiFixture();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static String classpathCopy() throws IOException {
        try (InputStream in = OpenApiDocumentTest.class.getResourceAsStream(
                "/buzz/scheduled/adapters/http/openapi.yaml")) {
            assertThat(in).as("openapi.yaml copied into the jar").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static Set<Route> documented(String yaml) throws IOException {
        JsonNode document = new ObjectMapper(new YAMLFactory()).readTree(yaml);
        assertThat(document.get("openapi").asText()).startsWith("3.1");
        Set<Route> routes = new HashSet<>();
        for (Map.Entry<String, JsonNode> path : document.get("paths").properties()) {
            path.getValue().fieldNames().forEachRemaining(name -> {
                if (METHODS.contains(name)) {
                    routes.add(new Route(name.toUpperCase(java.util.Locale.ROOT), path.getKey()));
                }
            });
        }
        return routes;
    }

    @Test
    void classpathCopy_isTheFileInDocs() throws IOException {
        Path source = Path.of("..", "docs", "openapi.yaml");

        assertThat(classpathCopy()).isEqualTo(Files.readString(source, StandardCharsets.UTF_8));
    }

    @Test
    void documentedRoutes_areExactlyTheRegisteredRoutes() throws IOException {
        Set<Route> documented = documented(classpathCopy());

        assertThat(Set.copyOf(api.api.routes())).isEqualTo(documented);
        assertThat(Set.copyOf(api.api.registeredRoutes())).isEqualTo(documented);
    }

    @Test
    void everyDocumentedRoute_isServed() throws IOException {
        for (Route route : documented(classpathCopy())) {
            String path = route.path().replace("{id}", "00000000-0000-4000-8000-000000000001")
                    .replace("{series}", "00000000-0000-4000-8000-000000000002")
                    .replace("{channel}", "general").replace("{pubkey}", "a1".repeat(32));

            ApiFixture.Reply reply = api.call(route.method(), path).send();

            assertThat(reply.status()).as(route.toString()).isNotEqualTo(405);
            if (reply.status() == 404) {
                assertThat(reply.json().get("message").asText()).as(route.toString()).doesNotStartWith("no route");
            }
        }
    }

    @Test
    void openapiRoute_servesTheDocument() throws IOException {
        ApiFixture.Reply reply = api.call("GET", "/openapi.yaml").send();

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.header("Content-Type")).startsWith("application/yaml");
        assertThat(reply.text()).isEqualTo(classpathCopy());
    }
}

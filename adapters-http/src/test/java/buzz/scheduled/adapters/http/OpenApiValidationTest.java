package buzz.scheduled.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * docs/openapi.yaml is a valid OpenAPI 3.1 document, checked strictly: swagger-parser's validation reports nothing,
 * and the YAML (SnakeYAML, duplicate keys refused) holds no mapping key without a value — what a plain description
 * with ", " inside a flow mapping ({@code {type: integer, description: Unix seconds, when ...}}) silently turns into.
 */
class OpenApiValidationTest {
    private static final Path DOCUMENT = Path.of("..", "docs", "openapi.yaml");
    /** Keys whose value may legitimately be empty in OpenAPI: none in this document. */
    private static final Set<String> MAY_BE_EMPTY = Set.of();

    /** Every problem found in {@code yaml}: swagger-parser's messages and keys without a value. */
    static List<String> problems(String yaml) {
        List<String> problems = new ArrayList<>();
        LoaderOptions loading = new LoaderOptions();
        loading.setAllowDuplicateKeys(false);
        Object tree;
        try {
            tree = new Yaml(new SafeConstructor(loading)).load(yaml);
        } catch (RuntimeException e) {
            problems.add("YAML: " + e.getMessage());
            return problems;
        }
        emptyValues("", tree, problems);
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(yaml, null, options);
        if (result.getMessages() != null) {
            problems.addAll(result.getMessages());
        }
        if (result.getOpenAPI() == null) {
            problems.add("swagger-parser read no OpenAPI document");
        }
        return problems;
    }

    private static void emptyValues(String path, Object node, List<String> problems) {
        if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) -> {
                String where = path + "/" + key;
                if (value == null && !MAY_BE_EMPTY.contains(String.valueOf(key))) {
                    problems.add("key without a value (a broken plain scalar?): " + where);
                }
                emptyValues(where, value, problems);
            });
        } else if (node instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                emptyValues(path + "/" + i, list.get(i), problems);
            }
        }
    }

    @Test
    void document_strictlyValidated_hasNoProblem() throws IOException {
        assertThat(problems(Files.readString(DOCUMENT, StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void document_withAnUnquotedCommaInAFlowDescription_isRefused() throws IOException {
        String fixed = Files.readString(DOCUMENT, StandardCharsets.UTF_8);
        String broken = fixed.replace("description: 'Unix seconds, when it was admitted.'",
                "description: Unix seconds, when it was admitted.");
        assertThat(broken).as("the fixture changed the document").isNotEqualTo(fixed);

        assertThat(problems(broken)).anyMatch(problem -> problem.contains("created_at/when it was admitted."));
    }

    @Test
    void document_withAColonInAPlainDescription_isRefused() throws IOException {
        String fixed = Files.readString(DOCUMENT, StandardCharsets.UTF_8);
        String broken = fixed.replaceFirst("description: '`unauthorized`: NIP-98 authentication failed; the message "
                + "says which check.'", "description: unauthorized: NIP-98 authentication failed");
        assertThat(broken).isNotEqualTo(fixed);

        assertThat(problems(broken)).anyMatch(problem -> problem.startsWith("YAML: "));
    }
}

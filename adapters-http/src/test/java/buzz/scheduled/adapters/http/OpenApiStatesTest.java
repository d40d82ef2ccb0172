package buzz.scheduled.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.schedule.StateName;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The state names docs/openapi.yaml spells out are the domain's list ({@link StateName}): a state added to the domain
 * fails here until the document names it.
 */
class OpenApiStatesTest {

    private static JsonNode document() throws IOException {
        return new ObjectMapper(new YAMLFactory()).readTree(Files.readString(Path.of("..", "docs", "openapi.yaml")));
    }

    @Test
    void everyStateEnum_listsTheDomainsStatesInLifecycleOrder() throws IOException {
        List<String> found = new ArrayList<>();
        List<List<String>> enums = new ArrayList<>();
        collectStateEnums(document(), "", found, enums);

        assertThat(found).as("the item schemas' state properties")
                .contains("/components/schemas/Item/properties/state",
                        "/components/schemas/AdminItem/properties/state");
        assertThat(enums).allSatisfy(values -> assertThat(values)
                .containsExactlyElementsOf(StateName.wireNames(StateName.all())));
    }

    @Test
    void listRoute_stateParameter_documentsTheNonTerminalStatesAsTheDefault() throws IOException {
        JsonNode parameters = document().at("/paths/~1v1~1scheduled-messages/get/parameters");
        JsonNode state = null;
        for (JsonNode parameter : parameters) {
            if (parameter.path("name").asText().equals("state")) {
                state = parameter;
            }
        }

        assertThat(state).as("the state query parameter").isNotNull();
        assertThat(state.path("description").asText())
                .contains("`" + String.join(",", StateName.wireNames(StateName.where(s -> !s.terminal()))) + "`");
    }

    /** Every {@code state} property with an {@code enum}, anywhere in the document, with its values. */
    private static void collectStateEnums(JsonNode node, String pointer, List<String> found, List<List<String>> enums) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> child : node.properties()) {
                String path = pointer + "/" + child.getKey();
                if (child.getKey().equals("state") && child.getValue().has("enum")) {
                    found.add(path);
                    List<String> values = new ArrayList<>();
                    child.getValue().get("enum").forEach(value -> values.add(value.asText()));
                    enums.add(values);
                }
                collectStateEnums(child.getValue(), path, found, enums);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                collectStateEnums(node.get(i), pointer + "/" + i, found, enums);
            }
        }
    }
}

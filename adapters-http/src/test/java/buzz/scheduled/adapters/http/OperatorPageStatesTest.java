package buzz.scheduled.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.domain.schedule.StateName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The operator page's own lists of states (its count tiles and its search filter) are the domain's ({@link StateName}):
 * a state added to the domain fails here until the page shows it.
 */
class OperatorPageStatesTest {

    private static String resource(String name) throws IOException {
        try (InputStream in = OperatorPageStatesTest.class.getResourceAsStream(
                "/buzz/scheduled/adapters/http/admin/" + name)) {
            assertThat(in).as(name + " on the class path").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static List<String> all(Pattern pattern, String text) {
        List<String> found = new ArrayList<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }

    @Test
    void countTiles_listTheDomainsStatesInLifecycleOrder() throws IOException {
        Matcher states = Pattern.compile("const STATES = \\[([^\\]]*)\\];").matcher(resource("admin.js"));

        assertThat(states.find()).as("admin.js declares its STATES").isTrue();
        assertThat(all(Pattern.compile("'([a-z_]+)'"), states.group(1)))
                .containsExactlyElementsOf(StateName.wireNames(StateName.all()));
    }

    @Test
    void searchFilter_offersEveryDomainStateAndAny() throws IOException {
        Matcher select = Pattern.compile("<select name=\"state\">(.*?)</select>", Pattern.DOTALL)
                .matcher(resource("index.html"));

        assertThat(select.find()).as("index.html has the state filter").isTrue();
        assertThat(all(Pattern.compile("<option>([a-z_]+)</option>"), select.group(1)))
                .containsExactlyElementsOf(StateName.wireNames(StateName.all()));
        assertThat(select.group(1)).contains("<option value=\"\">any</option>");
    }
}

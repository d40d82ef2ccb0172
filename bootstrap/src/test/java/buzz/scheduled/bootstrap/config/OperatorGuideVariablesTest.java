package buzz.scheduled.bootstrap.config;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.bootstrap.cli.ClientCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The operator's guide, the README and the configuration (the sidecar's and the client commands') name the same
 * variables.
 */
class OperatorGuideVariablesTest {

    private static final Path GUIDE = Path.of("..", "docs", "scheduled-messages.md");
    private static final Pattern VARIABLE =
            Pattern.compile("\\b(?:BUZZ|RELAY|HTTP|PUBLIC|SIDECAR|DATABASE)_[A-Z0-9_]*[A-Z0-9]\\b");

    @Test
    void guide_everyVariableItNames_isReadByTheConfiguration() throws Exception {
        Set<String> named = variablesIn(Files.readString(GUIDE));
        Set<String> read = new TreeSet<>(SidecarConfig.VARIABLES);
        read.addAll(ClientCommands.VARIABLES);

        assertThat(named).isNotEmpty().isSubsetOf(read);
    }

    @Test
    void guide_clientCommandVariables_areDocumented() throws Exception {
        assertThat(variablesIn(Files.readString(GUIDE))).containsAll(ClientCommands.VARIABLES);
    }

    @Test
    void configuration_accessRetentionAndOperatorVariables_areDocumentedInTheGuide() throws Exception {
        Set<String> named = variablesIn(Files.readString(GUIDE));

        assertThat(named).contains(SidecarConfig.BUZZ_ACCESS_POLICY, SidecarConfig.BUZZ_ACCESS_URL,
                SidecarConfig.BUZZ_RELAY_PUBKEY, SidecarConfig.RELAY_OPERATOR_PUBKEYS, SidecarConfig.BUZZ_RETENTION_DAYS,
                SidecarConfig.RELAY_URL);
    }

    @Test
    void readme_namesEveryVariableTheConfigurationReads_andNoOther() throws Exception {
        Set<String> named = variablesIn(Files.readString(Path.of("..", "README.md")));
        Set<String> read = new TreeSet<>(SidecarConfig.VARIABLES);
        read.addAll(ClientCommands.VARIABLES);
        read.add("BUZZ_TEST_DATABASE_URL"); // the test suite's own, documented with the test command

        assertThat(named).containsAll(SidecarConfig.VARIABLES).isSubsetOf(read);
    }

    private static Set<String> variablesIn(String text) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = VARIABLE.matcher(text);
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }
}

package buzz.scheduled.adapters.relay;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.net.http.WebSocket;
import org.junit.jupiter.api.Test;

/**
 * The relay client's parts (docs/delivery.md): {@link RelayClient} uses {@link PublishLoop}, which applies what each
 * {@link Session} decides about its {@link Frame}s and {@link LookUp}s; none of them reaches back up to the client,
 * and only {@link RelayConnection} holds the JDK WebSocket.
 */
class RelayClientArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("buzz.scheduled.adapters.relay");

    @Test
    void nothingButTheClientItself_dependsOnTheClient() {
        noClasses().that().doNotBelongToAnyOf(RelayClient.class)
                .should().dependOnClassesThat().belongToAnyOf(RelayClient.class)
                .check(MAIN);
    }

    @Test
    void theClientsParts_neverTouchTheWebSocket() {
        noClasses().that().belongToAnyOf(RelayClient.class, PublishLoop.class, Session.class, Frame.class,
                        FrameState.class, FrameQueues.class, LookUp.class, LookUpOutcome.class, LookUpEnd.class,
                        Decision.class, RelayCounters.class)
                .should().dependOnClassesThat().belongToAnyOf(WebSocket.class)
                .check(MAIN);
    }

    @Test
    void theRulesSeeTheClassesTheyAreAbout() {
        // A rule over an empty import holds for nothing: make sure the parts were imported.
        org.assertj.core.api.Assertions.assertThat(MAIN.contain(PublishLoop.class)).isTrue();
        org.assertj.core.api.Assertions.assertThat(MAIN.contain(Session.class)).isTrue();
        org.assertj.core.api.Assertions.assertThat(MAIN.contain(RelayClient.class)).isTrue();
    }
}

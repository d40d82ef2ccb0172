package buzz.scheduled.adapters.relay;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.net.http.WebSocket;
import org.junit.jupiter.api.Test;

/**
 * The relay client's parts (docs/delivery.md): {@link RelayClient} uses {@link PublishLoop}, which applies what each
 * {@link Session} decides about its {@link Frame}s and {@link LookUp}s; none of them reaches back up to the client,
 * and only {@link RelayConnection} (with its {@link Outbox}) holds the JDK WebSocket.
 */
class RelayClientArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("buzz.scheduled.adapters.relay");

    private static final ArchRule NOTHING_REACHES_BACK_UP = noClasses().that().doNotBelongToAnyOf(RelayClient.class)
            .should().dependOnClassesThat().belongToAnyOf(RelayClient.class);

    private static final ArchRule PARTS_KEEP_OFF_THE_WEBSOCKET = noClasses()
            .that().belongToAnyOf(RelayClient.class, PublishLoop.class, Session.class, Frame.class, FrameState.class,
                    FrameQueues.class, LookUp.class, LookUpOutcome.class, LookUpEnd.class, Decision.class,
                    RelayCounters.class)
            .should().dependOnClassesThat().belongToAnyOf(WebSocket.class);

    @Test
    void nothingButTheClientItself_dependsOnTheClient() {
        assertThat(MAIN.contain(PublishLoop.class) && MAIN.contain(Session.class)).isTrue();
        NOTHING_REACHES_BACK_UP.check(MAIN);
    }

    @Test
    void theClientsParts_neverTouchTheWebSocket() {
        PARTS_KEEP_OFF_THE_WEBSOCKET.check(MAIN);
    }

    @Test
    void theBackUpRule_firesOnAClassThatBreaksIt() {
        JavaClasses broken = new ClassFileImporter().importClasses(CallsBackUp.class, RelayClient.class);

        assertThat(NOTHING_REACHES_BACK_UP.evaluate(broken).hasViolation()).isTrue();
    }

    /** A part that calls back into the client, as Session did before: the first rule must catch it. */
    private static final class CallsBackUp {
        int connections(RelayClient client) {
            return (int) client.counts().connections();
        }
    }
}

package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.domain.schedule.StateName;
import buzz.scheduled.domain.schedule.Transition;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The state names the migrations spell out (CHECK constraints, the due-work NOTIFY triggers) are the domain's
 * ({@link StateName}, {@link Transition}), read back from the migrated catalog: a state added to the domain fails here
 * until a migration says what the schema allows of it.
 */
class SchemaStatesTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final Pattern LITERAL = Pattern.compile("'([a-z_]+)'::");

    @Test
    void checkConstraints_thatNameStates_nameExactlyTheDomainsGroups() {
        Map<String, Set<String>> checks = statesNamedBy("SELECT conname || '|' || pg_get_constraintdef(oid)"
                + " FROM pg_constraint WHERE conrelid = 'scheduled_message'::regclass AND contype = 'c'");

        assertThat(checks).containsOnlyKeys("scheduled_message_state_known", "scheduled_message_reason_iff_failed",
                "scheduled_message_claim_iff_in_flight", "scheduled_message_finished_at_iff_terminal",
                "scheduled_message_pending_has_event");
        assertThat(checks.get("scheduled_message_state_known")).as("every state, no other")
                .isEqualTo(names(state -> true));
        assertThat(checks.get("scheduled_message_reason_iff_failed")).isEqualTo(names(StateName::hasReason));
        assertThat(checks.get("scheduled_message_claim_iff_in_flight")).isEqualTo(names(StateName::holdsClaim));
        assertThat(checks.get("scheduled_message_finished_at_iff_terminal")).isEqualTo(names(StateName::terminal));
        assertThat(checks.get("scheduled_message_pending_has_event")).as("the states that must keep their event")
                .isEqualTo(names(state -> !state.terminal()));
    }

    @Test
    void notifyTriggers_nameExactlyTheClaimableStates() {
        Map<String, Set<String>> triggers = statesNamedBy("SELECT tgname || '|' || pg_get_triggerdef(oid)"
                + " FROM pg_trigger WHERE tgrelid = 'scheduled_message'::regclass AND NOT tgisinternal");

        assertThat(triggers).containsOnlyKeys("scheduled_message_notify_due_insert",
                "scheduled_message_notify_due_update", "scheduled_message_failed_notice",
                "scheduled_message_published_notice");
        assertThat(List.of(triggers.get("scheduled_message_notify_due_insert"),
                triggers.get("scheduled_message_notify_due_update"))).allSatisfy(states -> assertThat(states)
                .isEqualTo(Set.copyOf(StateName.wireNames(Transition.CLAIM.startStates()))));
    }

    @Test
    void noticeTriggers_nameTheDomainsFailureAndPublicationTargets() {
        Map<String, Set<String>> triggers = statesNamedBy("SELECT tgname || '|' || pg_get_triggerdef(oid)"
                + " FROM pg_trigger WHERE tgrelid = 'scheduled_message'::regclass AND NOT tgisinternal"
                + " AND tgname LIKE '%notice'");

        assertThat(triggers.get("scheduled_message_failed_notice"))
                .containsExactly(Transition.FAIL.target().wireName());
        assertThat(triggers.get("scheduled_message_published_notice"))
                .containsExactly(Transition.PUBLISH.target().wireName());
    }

    /** For each object the query names (as {@code name|definition}), the state names its definition spells. */
    private static Map<String, Set<String>> statesNamedBy(String query) {
        Map<String, Set<String>> named = new TreeMap<>();
        List<String> rows = db.queryColumn(query);
        assertThat(rows).isNotEmpty();
        for (String row : rows) {
            String name = row.substring(0, row.indexOf('|'));
            String definition = row.substring(row.indexOf('|') + 1);
            if (!definition.contains("state")) {
                continue;
            }
            Set<String> literals = new LinkedHashSet<>();
            Matcher literal = LITERAL.matcher(definition);
            while (literal.find()) {
                literals.add(literal.group(1));
            }
            assertThat(literals).as("%s: %s", name, definition).isNotEmpty();
            named.put(name, literals);
        }
        return named;
    }

    private static Set<String> names(Predicate<StateName> which) {
        return Set.copyOf(StateName.wireNames(StateName.where(which)));
    }
}

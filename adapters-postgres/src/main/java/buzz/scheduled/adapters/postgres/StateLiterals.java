package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.jooq.tables.ScheduledMessageTable;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.StateName;
import buzz.scheduled.domain.schedule.Transition;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * The {@code scheduled_message.state} values queries name, all built from the domain's list ({@link StateName}) and
 * table ({@link Transition}), so no state name is spelled in SQL by hand. Where a state is compared directly it is
 * an SQL literal, not a bind value: pgjdbc prepares a statement on the server after a few uses, and PostgreSQL's
 * generic plan for {@code state = $1} could not use a partial index's predicate, nor estimate the few rows in a rare
 * state. "Pending" and "terminal" are said with {@code finished_at}, which a CHECK constraint ties to the state (NULL
 * exactly while not terminal), because the partial indexes are defined on it (migration V4: no index mentions
 * {@code state}, so a claim is a HOT update).
 */
final class StateLiterals {
    /** What the claim takes: {@code 'scheduled'}. */
    static final String CLAIMABLE = single(Transition.CLAIM.startStates());
    /** What the claim makes it: {@code 'sending'}. */
    static final String CLAIMED_INTO = literal(Transition.CLAIM.target());
    /** What every finishing write requires: {@code 'sending'}. */
    static final String FINISHABLE = single(same(Transition.PUBLISH, Transition.RETRY, Transition.EXPIRE,
            Transition.FAIL, Transition.RELEASE));
    /** A publish's result ({@code published}). */
    static final StateName PUBLISH_TARGET = Transition.PUBLISH.target();
    /** A failure's and an expired retry's result ({@code failed}). */
    static final StateName FAIL_TARGET = sameTarget(Transition.FAIL, Transition.EXPIRE);
    /** A retry's and a release's result ({@code scheduled}). */
    static final StateName RETRY_TARGET = sameTarget(Transition.RETRY, Transition.RELEASE);
    /** {@link #PUBLISH_TARGET} as a literal: {@code 'published'}. */
    static final String PUBLISHED = literal(PUBLISH_TARGET);
    /** {@link #FAIL_TARGET} as a literal: {@code 'failed'}. */
    static final String FAILED = literal(FAIL_TARGET);
    /** {@link #RETRY_TARGET} as a literal: {@code 'scheduled'}. */
    static final String RESCHEDULED = literal(RETRY_TARGET);
    /** Whose lease a renewal extends: {@code 'claimed', 'sending'}. */
    static final String RENEWABLE = list(Transition.RENEW_LEASE.startStates());
    /** What the reaper takes back: {@code 'claimed', 'sending'}. */
    static final String REAPABLE = list(Transition.REAP.startStates());
    /** What the reaper makes it: {@code 'scheduled'}. */
    static final String REAPED_INTO = literal(Transition.REAP.target());
    /** What a channel deletion or member removal fails before it is sent. */
    static final List<Field<String>> REVOCABLE = fields(Transition.REVOKE.startStates());
    /** What a revocation makes it ({@code failed}). */
    static final String REVOKED_INTO = Transition.REVOKE.target().wireName();
    /** What an owner's cancel moves: {@code 'scheduled'}, {@code 'claimed'}. */
    static final List<Field<String>> CANCELLABLE = fields(Transition.CANCEL.startStates());
    /** What an owner's cancel makes it: {@code cancelled}. */
    static final String CANCELLED_INTO = Transition.CANCEL.target().wireName();
    /** Where an owner's cancel is refused because the message is being sent ({@code sending}). */
    static final List<Field<String>> DISPATCHING = fields(StateName.where(state -> Transition.CANCEL.from(state)
            instanceof Transition.Step.Refused refused && refused.refusal() == OwnerRefusal.DISPATCHING));
    /** Pending but not revocable ({@code sending}): left to its claim's fenced finishing write. */
    static final List<Field<String>> IN_FLIGHT = fields(StateName.where(state -> !state.terminal()
            && !Transition.REVOKE.startStates().contains(state)));

    /** The failure reasons that purge the event ({@code 'channel_deleted', 'member_removed'}), for {@code IN (…)}. */
    static final String PURGING_REASONS = Arrays.stream(FailureReason.values()).filter(FailureReason::purgesEvent)
            .map(reason -> "'" + reason.wireName() + "'").collect(Collectors.joining(", "));

    private StateLiterals() {
    }

    /** Not yet ended ({@code scheduled}, {@code claimed}, {@code sending}): counted against the limits. */
    static Condition pending(ScheduledMessageTable table) {
        return table.FINISHED_AT.isNull();
    }

    /** Ended ({@code published}, {@code cancelled}, {@code failed}). */
    static Condition terminal(ScheduledMessageTable table) {
        return table.FINISHED_AT.isNotNull();
    }

    /** {@code state} as an SQL literal: {@code 'scheduled'}. */
    static String literal(StateName state) {
        return "'" + state.wireName() + "'";
    }

    /** {@code states} as SQL literals for {@code IN (…)}, in lifecycle order: {@code 'claimed', 'sending'}. */
    static String list(Collection<StateName> states) {
        if (states.isEmpty()) {
            throw new IllegalArgumentException("an SQL list of states needs at least one");
        }
        return StateName.wireNames(states).stream().map(name -> "'" + name + "'").collect(Collectors.joining(", "));
    }

    /** {@code states} as inline jOOQ literals, in lifecycle order. */
    static List<Field<String>> fields(Collection<StateName> states) {
        return StateName.wireNames(states).stream().<Field<String>>map(DSL::inline).toList();
    }

    /**
     * The literal of the one state in {@code states}; a statement written for one state (an {@code =}) fails to load
     * rather than run with a different meaning when the domain's table gives it more.
     */
    private static String single(Set<StateName> states) {
        if (states.size() != 1) {
            throw new IllegalStateException("a statement compares state with one value, but the domain's table has "
                    + StateName.wireNames(states));
        }
        return literal(states.iterator().next());
    }

    /** The start states {@code transitions} share (the finishing statement writes all of them under one condition). */
    private static Set<StateName> same(Transition... transitions) {
        Set<StateName> first = EnumSet.copyOf(transitions[0].startStates());
        for (Transition transition : transitions) {
            if (!transition.startStates().equals(first)) {
                throw new IllegalStateException(transition + " starts from " + transition.startStates() + ", not "
                        + first + " like " + transitions[0]);
            }
        }
        return first;
    }

    /** The target {@code transitions} share (one branch of a statement writes them all). */
    private static StateName sameTarget(Transition... transitions) {
        StateName first = transitions[0].target();
        for (Transition transition : transitions) {
            if (transition.target() != first) {
                throw new IllegalStateException(transition + " leads to " + transition.target() + ", not "
                        + first + " like " + transitions[0]);
            }
        }
        return first;
    }
}

package buzz.scheduled.application.fakes;

import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.StateName;
import buzz.scheduled.domain.schedule.Transition;
import buzz.scheduled.domain.schedule.Transition.Step;
import java.time.Instant;
import java.util.Optional;

/**
 * The in-memory stores' writes, read off {@link Transition}'s table: whether a transition applies from a message's
 * state, which state it leads to, and what that state holds ({@link StateName}), so the fakes carry no state machine
 * of their own. The PostgreSQL stores do the same in SQL, and {@code TransitionContract} checks both against the
 * table.
 */
final class TableMoves {
    private TableMoves() {
    }

    /**
     * {@code message} after {@code transition} at {@code now} (the store's clock), or empty when the table says the
     * transition does not apply from its state. Of {@code parts} only what the new state holds is kept (a claim, a
     * retry time, a reason); a terminal state ends at {@code now}, a state that does not keep the event purges it
     * (a failure as its reason says),
     * and the claim counts an attempt.
     */
    static Optional<ScheduledMessage> move(ScheduledMessage message, Transition transition,
                                           ScheduleState.Fields parts, Instant now) {
        if (!(transition.from(message.state().stateName()) instanceof Step.Moves moves)) {
            return Optional.empty();
        }
        StateName to = moves.to();
        ScheduleState next = ScheduleState.of(new ScheduleState.Fields(to,
                to.waitsForRetry() ? parts.retryAt() : Optional.empty(),
                to.holdsClaim() ? parts.token() : Optional.empty(),
                to.holdsClaim() ? parts.leaseUntil() : Optional.empty(),
                to.terminal() ? Optional.of(now) : Optional.empty(),
                to.hasReason() ? parts.reason() : Optional.empty()));
        return Optional.of(new ScheduledMessage(message.id(), message.owner(), message.channel(), message.revision(),
                message.eventId(), message.dueAt(), next.keepsEvent() ? message.event() : Optional.empty(), next,
                message.attempts() + (transition.countsAttempt() ? 1 : 0), message.createdAt(), now,
                message.series()));
    }

    /** No parts: a move into a state that holds nothing but its name (and its end time). */
    static ScheduleState.Fields nothing() {
        return ScheduleState.Fields.of(StateName.SCHEDULED);
    }
}

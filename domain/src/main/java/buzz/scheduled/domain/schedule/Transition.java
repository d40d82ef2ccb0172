package buzz.scheduled.domain.schedule;

import static buzz.scheduled.domain.schedule.StateName.CANCELLED;
import static buzz.scheduled.domain.schedule.StateName.CLAIMED;
import static buzz.scheduled.domain.schedule.StateName.FAILED;
import static buzz.scheduled.domain.schedule.StateName.PUBLISHED;
import static buzz.scheduled.domain.schedule.StateName.SCHEDULED;
import static buzz.scheduled.domain.schedule.StateName.SENDING;

import java.util.EnumSet;
import java.util.Set;

/**
 * The state machine of a scheduled message as one table: for every operation and every {@link StateName}, what the
 * operation does from there ({@link #from}). The owner's operations are {@link ScheduledMessage#revise},
 * {@link ScheduledMessage#cancel} and {@link ScheduledMessage#sendNow}, which read this table; the delivery
 * operations are the store's conditional writes (docs/delivery.md, "The hot path"), whose state literals are built
 * from it and whose behaviour a contract test ({@code TransitionContract}) checks against it, row by row, for every
 * store.
 *
 * <p>What each state holds (claim, retry time, reason, payload) is {@link StateName}'s; a move into a state that does
 * not {@linkplain StateName#keepsEvent() keep the event} purges it.
 */
public enum Transition {
    /** The owner replaces the event with a newly admitted one ({@code PUT}, with {@code If-Match}). */
    REVISE,
    /** The owner cancels it ({@code DELETE}); a repeat answers it unchanged. */
    CANCEL,
    /** The owner makes it due now ({@code send-now}), with the stored event or a newly signed one. */
    SEND_NOW,
    /** A dispatcher claims it when its due and retry times have come: a new fencing token, a lease, one attempt. */
    CLAIM,
    /** The claim's holder moves its lease end on. */
    RENEW_LEASE,
    /** The relay accepted the event. */
    PUBLISH,
    /** A transient relay answer: claimable again at a retry time within the lateness limit. */
    RETRY,
    /** A transient relay answer whose retry time would be past the lateness limit: failed {@code expired}. */
    EXPIRE,
    /** The relay rejected it, or a pre-send check failed: failed with that reason. */
    FAIL,
    /** The claim's holder gives it back unsent (shutdown, access unavailable): claimable again at once. */
    RELEASE,
    /** The reaper takes back a claim whose lease ended (plus a grace) without an outcome. */
    REAP,
    /** Its channel was deleted or its owner removed from it: failed {@code channel_deleted}, {@code member_removed}. */
    REVOKE,
    /**
     * An operator makes a failed message due again with the owner's stored event, once the cause is fixed
     * (docs/scheduled-messages.md §8): back to {@code scheduled}, no retry time.
     */
    REQUEUE;

    /** What one operation does from one state. */
    public sealed interface Step {
        /** It moves into {@code to}. */
        record Moves(StateName to) implements Step {
            public Moves {
                if (to == null) {
                    throw new IllegalArgumentException("a move needs the state it leads to");
                }
            }
        }

        /** An owner operation answered with the message as it is (cancelling a cancelled message). */
        record Stays() implements Step {
        }

        /** An owner operation the state refuses, with the API's error code. */
        record Refused(OwnerRefusal refusal) implements Step {
            public Refused {
                if (refusal == null) {
                    throw new IllegalArgumentException("a refusal needs its code");
                }
            }
        }

        /** A delivery operation that does not apply in that state: the store's conditional write leaves the row. */
        record Fenced() implements Step {
        }
    }

    private static final Step FENCED = new Step.Fenced();

    /**
     * The table's cell for this operation in {@code state}. Each operation is a switch over every state without a
     * default, so a new state does not compile until each operation says what it does there.
     */
    public Step from(StateName state) {
        return switch (this) {
            case REVISE -> switch (state) {
                case SCHEDULED, CLAIMED -> moves(SCHEDULED);
                case SENDING -> refused(OwnerRefusal.DISPATCHING);
                case PUBLISHED, CANCELLED, FAILED -> refused(OwnerRefusal.NOT_PENDING);
            };
            case CANCEL -> switch (state) {
                case SCHEDULED, CLAIMED -> moves(CANCELLED);
                case SENDING -> refused(OwnerRefusal.DISPATCHING);
                case PUBLISHED -> refused(OwnerRefusal.ALREADY_SENT);
                case CANCELLED -> new Step.Stays();
                case FAILED -> refused(OwnerRefusal.NOT_PENDING);
            };
            case SEND_NOW -> switch (state) {
                case SCHEDULED, CLAIMED -> moves(SCHEDULED);
                case SENDING -> refused(OwnerRefusal.DISPATCHING);
                case PUBLISHED -> refused(OwnerRefusal.ALREADY_SENT);
                case CANCELLED, FAILED -> refused(OwnerRefusal.NOT_PENDING);
            };
            case CLAIM -> switch (state) {
                case SCHEDULED -> moves(SENDING);
                case CLAIMED, SENDING, PUBLISHED, CANCELLED, FAILED -> FENCED;
            };
            case RENEW_LEASE -> switch (state) {
                case CLAIMED -> moves(CLAIMED);
                case SENDING -> moves(SENDING);
                case SCHEDULED, PUBLISHED, CANCELLED, FAILED -> FENCED;
            };
            case PUBLISH -> switch (state) {
                case SENDING -> moves(PUBLISHED);
                case SCHEDULED, CLAIMED, PUBLISHED, CANCELLED, FAILED -> FENCED;
            };
            case RETRY, RELEASE -> switch (state) {
                case SENDING -> moves(SCHEDULED);
                case SCHEDULED, CLAIMED, PUBLISHED, CANCELLED, FAILED -> FENCED;
            };
            case EXPIRE, FAIL -> switch (state) {
                case SENDING -> moves(FAILED);
                case SCHEDULED, CLAIMED, PUBLISHED, CANCELLED, FAILED -> FENCED;
            };
            case REAP -> switch (state) {
                case CLAIMED, SENDING -> moves(SCHEDULED);
                case SCHEDULED, PUBLISHED, CANCELLED, FAILED -> FENCED;
            };
            case REVOKE -> switch (state) {
                // A message already sending is left to its claim's fenced finishing write.
                case SCHEDULED, CLAIMED -> moves(FAILED);
                case SENDING, PUBLISHED, CANCELLED, FAILED -> FENCED;
            };
            case REQUEUE -> switch (state) {
                case FAILED -> moves(SCHEDULED);
                case SCHEDULED, CLAIMED, SENDING, CANCELLED -> refused(OwnerRefusal.NOT_FAILED);
                case PUBLISHED -> refused(OwnerRefusal.ALREADY_SENT);
            };
        };
    }

    /**
     * Whether it is asked for over the API and runs in the aggregate (the owner's operations, and an operator's
     * requeue), answering refusals, rather than the delivery side's conditional writes in a store.
     */
    public boolean byOwner() {
        return switch (this) {
            case REVISE, CANCEL, SEND_NOW, REQUEUE -> true;
            case CLAIM, RENEW_LEASE, PUBLISH, RETRY, EXPIRE, FAIL, RELEASE, REAP, REVOKE -> false;
        };
    }

    /** Whether a move counts one more attempt. */
    public boolean countsAttempt() {
        return this == CLAIM;
    }

    /** The states it moves from, in lifecycle order. */
    public Set<StateName> startStates() {
        return StateName.where(state -> from(state) instanceof Step.Moves);
    }

    /** The states its moves lead to. */
    public Set<StateName> targets() {
        Set<StateName> targets = EnumSet.noneOf(StateName.class);
        for (StateName state : StateName.values()) {
            if (from(state) instanceof Step.Moves moves) {
                targets.add(moves.to());
            }
        }
        return targets;
    }

    /**
     * The one state every move of it leads to.
     *
     * @throws IllegalStateException when its moves lead to several states ({@link #RENEW_LEASE} keeps each) or none
     */
    public StateName target() {
        Set<StateName> targets = targets();
        if (targets.size() != 1) {
            throw new IllegalStateException(this + " leads to " + targets + ", not to one state");
        }
        return targets.iterator().next();
    }

    private static Step moves(StateName to) {
        return new Step.Moves(to);
    }

    private static Step refused(OwnerRefusal refusal) {
        return new Step.Refused(refusal);
    }
}

package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.OperatorCancelUseCase;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.RequeueMessageUseCase;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.MessageAdmission.WindowScope;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.application.port.out.OwnerMessageChanges.ReviseResult;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.OwnerOutcome;
import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * An operator's actions on one message of any owner (docs/scheduled-messages.md §8): cancel a
 * pending message, requeue a failed one. The domain decides ({@link ScheduledMessage#cancel},
 * {@link ScheduledMessage#requeue}); the write is the owner's compare-and-set, and a requeue's is made under the
 * channel lock with the tombstone and the window limit re-checked, like an edit, so it can neither slip into a channel
 * being deleted nor past the window. Each action that changes a message is one INFO line on the logger
 * {@code buzz.operator} naming the operator's pubkey, the message and its owner.
 */
public final class OperatorActionsService implements OperatorCancelUseCase, RequeueMessageUseCase {

    private static final System.Logger LOG = System.getLogger("buzz.operator");
    /** Compare-and-set attempts before an action gives up to a storm of concurrent writers. */
    private static final int MAX_CAS_ATTEMPTS = 8;

    private final OwnerMessageQueries queries;
    private final OwnerMessageChanges changes;
    private final StoreClock clock;
    private final DueWorkNotice dueWork;
    private final SchedulingSettings settings;
    private final Duration latenessLimit;

    /**
     * @param clock         the store's clock, for the requeue's lateness check
     * @param dueWork       told the due time of every requeued message
     * @param settings      the window limits a requeue is checked against
     * @param latenessLimit {@code BUZZ_MAX_LATENESS_SECONDS}: a message whose {@code created_at} is older than this
     *                      is not requeued
     */
    public OperatorActionsService(OwnerMessageQueries queries, OwnerMessageChanges changes, StoreClock clock,
                                  DueWorkNotice dueWork, SchedulingSettings settings, Duration latenessLimit) {
        if (queries == null || changes == null || clock == null || dueWork == null || settings == null
                || latenessLimit == null || latenessLimit.isNegative()) {
            throw new IllegalArgumentException("operator actions need queries, changes, a clock, the due-work notice,"
                    + " the scheduling settings and a lateness limit");
        }
        this.queries = queries;
        this.changes = changes;
        this.clock = clock;
        this.dueWork = dueWork;
        this.settings = settings;
        this.latenessLimit = latenessLimit;
    }

    @Override
    public OwnerChangeResult cancel(OperatorCancelCommand command) {
        Instant now = clock.now();
        return act(command.id(), current -> current.cancel(now), (current, next) -> {
            if (!changes.replace(current, next)) {
                return Optional.empty();
            }
            logged(command.operator(), "cancelled", next);
            return Optional.of(new OwnerChangeResult.Done(next));
        });
    }

    @Override
    public OwnerChangeResult requeue(RequeueMessageCommand command) {
        Instant now = clock.now();
        return act(command.id(), current -> current.requeue(command.ifMatch(), latenessLimit, now),
                (current, next) -> writeRequeue(command.operator(), current, next));
    }

    private Optional<OwnerChangeResult> writeRequeue(PublicKey operator, ScheduledMessage current,
                                                     ScheduledMessage next) {
        return switch (changes.replaceRevision(current, next, settings.limits())) {
            case ReviseResult.Replaced replaced -> {
                dueWork.dueAt(next.dueAt());
                logged(operator, "requeued", next);
                yield Optional.of(new OwnerChangeResult.Done(next));
            }
            case ReviseResult.Lost lost -> Optional.empty();
            case ReviseResult.ChannelDeleted deleted -> Optional.of(new OwnerChangeResult.Refused(new Refusal(
                    RefusalCode.CHANNEL_NOT_FOUND, "channel " + next.channel() + " was deleted")));
            case ReviseResult.ChannelWindowFull full -> Optional.of(new OwnerChangeResult.Refused(new Refusal(
                    RefusalCode.RESTRICTED_TOO_MANY, "channel " + next.channel() + " already has " + full.limit()
                    + " messages due in the window starting " + full.windowStart().getEpochSecond()
                    + (full.scope() == WindowScope.OWNER
                    ? " from this owner" : " from all owners"))));
        };
    }

    /**
     * Reads the message (any owner's), asks the domain, writes by compare-and-set; reads again after a lost race.
     *
     * @param write the write of a change; empty when the row changed since it was read
     */
    private OwnerChangeResult act(ScheduleId id, Function<ScheduledMessage, OwnerOutcome> decide,
                                  BiFunction<ScheduledMessage, ScheduledMessage, Optional<OwnerChangeResult>> write) {
        for (int attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
            Optional<ScheduledMessage> found = queries.find(id);
            if (found.isEmpty()) {
                return new OwnerChangeResult.NotFound();
            }
            ScheduledMessage current = found.get();
            Optional<OwnerChangeResult> answered = switch (decide.apply(current)) {
                case OwnerOutcome.Changed changed -> write.apply(current, changed.message());
                case OwnerOutcome.Unchanged unchanged -> Optional.of(new OwnerChangeResult.Done(unchanged.message()));
                case OwnerOutcome.RevisionConflict conflict ->
                        Optional.of(new OwnerChangeResult.RevisionConflict(conflict.current()));
                case OwnerOutcome.Refused refused -> Optional.of(new OwnerChangeResult.StateConflict(
                        refused.refusal(), conflictMessage(refused.refusal(), current)));
            };
            if (answered.isPresent()) {
                return answered.get();
            }
        }
        return new OwnerChangeResult.Unavailable("message " + id + " kept changing under concurrent writers;"
                + " try again");
    }

    private String conflictMessage(OwnerRefusal refusal, ScheduledMessage current) {
        String it = "message " + current.id();
        return switch (refusal) {
            case DISPATCHING -> it + " is being sent to the relay right now";
            case NOT_PENDING -> it + " is " + current.state().wireName() + " and can no longer be cancelled";
            case ALREADY_SENT -> it + " was already published";
            case NOT_FAILED -> it + " is " + current.state().wireName() + "; only a failed message can be requeued";
            case EVENT_PURGED -> it + "'s signed event was deleted when it failed "
                    + current.failureReason().map(FailureReason::wireName).orElse("") + "; only its owner can"
                    + " schedule it again";
            case RESIGN_REQUIRED -> it + " is due at " + current.dueAt().getEpochSecond() + ", more than the lateness"
                    + " limit (BUZZ_MAX_LATENESS_SECONDS = " + latenessLimit.toSeconds() + " s) ago: it would fail"
                    + " expired at once and a relay refuses an event that old; only its owner can sign it again";
        };
    }

    /** The action's log line, once its write committed. */
    private static void logged(PublicKey operator, String action, ScheduledMessage message) {
        LOG.log(Level.INFO, "operator {0} {1} {2} (owner {3}, channel {4}, revision {5}, now {6})", operator.hex(),
                action, message.id().toString(), message.owner().hex(), message.channel().value(),
                Integer.toString(message.revision().number()), message.state().wireName());
    }
}

package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.DeliveryUseCase;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.application.port.out.ScheduleStore;
import buzz.scheduled.domain.schedule.DeliveryOutcome;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Claims, fences and finishes deliveries over the storage port (DELIVERY.md steps 1, 3, 5 and 6). Every
 * decision uses the store's clock, and every write is a compare-and-set on (state, token, revision), so a
 * dispatcher that lost its claim changes nothing.
 */
public final class DeliveryService implements DeliveryUseCase {

    private final ScheduleStore store;
    private final AccessPolicy access;
    private final DeliverySettings settings;

    public DeliveryService(ScheduleStore store, AccessPolicy access, DeliverySettings settings) {
        this.store = store;
        this.access = access;
        this.settings = settings;
    }

    @Override
    public List<ClaimedWork> claimDue(int limit) {
        return store.claimDue(limit, settings.lease()).stream().map(ClaimedWork::of).toList();
    }

    @Override
    public GateResult startSending(ClaimedWork work) {
        AccessDecision decision = access.check(work.claimed().owner(), work.claimed().channel(), work.event().kind());
        if (decision instanceof AccessDecision.Allowed) {
            // The common case in one conditional write; any failed condition falls through to the general path,
            // which finds out which one and records the outcome.
            Optional<ScheduleStore.SendingStarted> started = store.startSending(work.claim(), work.revision(),
                    settings.minLeaseLeft(), settings.maxLateness());
            if (started.isPresent()) {
                return send(work, started.get().now(), started.get().leaseUntil());
            }
        }
        return startSendingChecked(work, decision);
    }

    /** The general pre-send step: each condition checked in turn, with the outcome recorded. */
    private GateResult startSendingChecked(ClaimedWork work, AccessDecision decision) {
        // The claim's own value is the compare-and-set expectation: an edit, cancel, reap or rival claim since
        // then changed the row's state, token or revision, and the fenced write below then changes nothing.
        ScheduledMessage current = work.claimed();
        if (store.channelDeleted(current.channel())) {
            // A message that was in flight when its channel was deleted may come back here for a retry.
            return finish(current, work, (message, now) -> message.fail(work.token(), FailureReason.CHANNEL_DELETED, now))
                    .<GateResult>map(GateResult.Ended::new)
                    .orElseGet(() -> new GateResult.Dropped("lost the claim while recording channel_deleted"));
        }
        if (decision instanceof AccessDecision.Denied denied) {
            return finish(current, work, (message, now) -> message.fail(work.token(), FailureReason.ACCESS_DENIED, now))
                    .<GateResult>map(GateResult.Ended::new)
                    .orElseGet(() -> new GateResult.Dropped("lost the claim while recording " + denied.code().wireName()));
        }
        if (decision instanceof AccessDecision.Unavailable unavailable) {
            retryLater(work, "access policy unavailable: " + unavailable.message());
            return new GateResult.Deferred(unavailable.message());
        }
        Instant now = store.now();
        DeliveryOutcome outcome = current.startSending(work.token(), work.revision(), settings.minLeaseLeft(),
                settings.maxLateness(), now);
        return switch (outcome) {
            case DeliveryOutcome.Fenced fenced -> new GateResult.Dropped(fenced.why());
            case DeliveryOutcome.Moved moved -> {
                if (!store.replace(current, moved.message())) {
                    yield new GateResult.Dropped("claim " + work.token() + " on " + work.id() + " lost a race");
                }
                if (moved.message().state() instanceof ScheduleState.Sending sending) {
                    yield send(work, now, sending.leaseUntil());
                }
                yield new GateResult.Ended(moved.message());
            }
        };
    }

    /**
     * Go ahead: the budget is what is left of the lease less the safety margin. It is not capped at the publish
     * timeout here: the dispatcher applies the timeout from the moment it publishes, so time the pre-send step
     * spent queued (a busy pool, a grouped write) does not shorten the relay's time to answer, which would turn
     * an accepted event into a timeout and a re-send.
     */
    private GateResult send(ClaimedWork work, Instant now, Instant leaseUntil) {
        return new GateResult.Send(work.event(), Duration.between(now, leaseUntil).minus(settings.safetyMargin()));
    }

    @Override
    public boolean published(ClaimedWork work) {
        return store.markPublished(work.claim(), work.revision())
                || finishAfterSend(work, (message, now) -> message.publish(work.token(), now));
    }

    @Override
    public boolean retryLater(ClaimedWork work, String why) {
        return finishAfterSend(work, (message, now) -> message.retryLater(work.token(),
                now.plus(settings.backoff().delay(Math.max(1, message.attempts()))), settings.maxLateness(), now));
    }

    @Override
    public boolean failed(ClaimedWork work, FailureReason reason, String why) {
        return finishAfterSend(work, (message, now) -> message.fail(work.token(), reason, now));
    }

    @Override
    public boolean release(ClaimedWork work) {
        return finish(work, (message, now) -> message.release(work.token(), now)).isPresent();
    }

    @Override
    public Set<ScheduleId> renewLeases(Collection<ClaimedWork> claims) {
        if (claims.isEmpty()) {
            return Set.of();
        }
        return store.renewLeases(claims.stream().map(ClaimedWork::claim).toList(), settings.lease());
    }

    @Override
    public Instant now() {
        return store.now();
    }

    @Override
    public int reapExpiredLeases() {
        return store.reapExpiredLeases(settings.reapGrace());
    }

    @Override
    public Optional<Instant> nextDueAt() {
        return store.nextDueAt();
    }

    /**
     * A finishing write after a send: the row should be in {@code sending} under this claim, so that is the
     * compare-and-set expectation (no re-read). Called in another state (e.g. retry after a deferred pre-send
     * step), the expectation misses and the write falls back to reading the row.
     */
    private boolean finishAfterSend(ClaimedWork work,
                                    BiFunction<ScheduledMessage, Instant, DeliveryOutcome> transition) {
        ScheduledMessage claimed = work.claimed();
        ScheduledMessage sending = new ScheduledMessage(claimed.id(), claimed.owner(), claimed.channel(),
                claimed.revision(), claimed.eventId(), claimed.dueAt(), claimed.event(),
                new ScheduleState.Sending(work.token(), work.leaseUntil()), claimed.attempts(), claimed.createdAt(),
                claimed.updatedAt());
        return finish(sending, work, transition).isPresent() || finish(work, transition).isPresent();
    }

    private Optional<ScheduledMessage> finish(ClaimedWork work,
                                              BiFunction<ScheduledMessage, Instant, DeliveryOutcome> transition) {
        return store.find(work.id()).flatMap(current -> finish(current, work, transition));
    }

    /** One fenced write: the transition on the store's clock, then compare-and-set. */
    private Optional<ScheduledMessage> finish(ScheduledMessage current, ClaimedWork work,
                                              BiFunction<ScheduledMessage, Instant, DeliveryOutcome> transition) {
        if (!current.revision().equals(work.revision())) {
            return Optional.empty();
        }
        return switch (transition.apply(current, store.now())) {
            case DeliveryOutcome.Fenced fenced -> Optional.empty();
            case DeliveryOutcome.Moved moved ->
                    store.replace(current, moved.message()) ? Optional.of(moved.message()) : Optional.empty();
        };
    }
}

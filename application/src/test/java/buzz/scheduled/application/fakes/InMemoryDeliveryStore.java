package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.AttemptHistory;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.AttemptOutcome;
import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Lateness;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.Transition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The dispatcher's storage port in memory, over the rows of an {@link InMemoryOwnerMessages} and under its lock, so
 * an owner's edit and a claim are as atomic against each other as two transactions. Every write is a row of
 * {@link Transition}'s table ({@link TableMoves}); the PostgreSQL store must agree with it ({@code
 * DeliveryStoreContract},
 * {@code TransitionContract}). It keeps the attempts its finishing writes record ({@link AttemptHistory}) as the
 * PostgreSQL store does ({@code AttemptHistoryContract}).
 */
public final class InMemoryDeliveryStore implements DeliveryStore, AttemptHistory {
    private static final Comparator<ScheduledMessage> BY_CLAIMABLE = Comparator
            .comparing(InMemoryDeliveryStore::claimableAt)
            .thenComparing(m -> m.id().toString());

    private final InMemoryOwnerMessages store;
    private final SettableClock clock;
    private final AtomicLong tokens = new AtomicLong();
    private volatile Predicate<Finish> failingWrite = finish -> false;
    /** Rows an earlier claim may have sent without its outcome recorded (PostgreSQL's outcome_unknown); under lock. */
    private final Set<ScheduleId> outcomeUnknown = new HashSet<>();
    /** Retried and failed attempts by message, guarded by {@code store}'s lock. */
    private final Map<ScheduleId, List<DeliveryAttempt>> attempts = new HashMap<>();

    /**
     * @param store the rows (and the lock) shared with the owner's store
     * @param clock the store's clock
     */
    public InMemoryDeliveryStore(InMemoryOwnerMessages store, SettableClock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Makes the write of every outcome {@code failing} matches fail alone ({@link Written#FAILED_TO_WRITE}). */
    public void failWritesOf(Predicate<Finish> failing) {
        this.failingWrite = failing;
    }

    @Override
    public Instant now() {
        return clock.now();
    }

    @Override
    public ClaimedBatch claim(int limit, Duration lease) {
        if (limit < 1) {
            throw new IllegalArgumentException("claim limit must be at least 1, got " + limit);
        }
        synchronized (store) {
            Instant now = clock.now();
            List<ScheduledMessage> due = store.allRows().stream()
                    .filter(m -> claimable(m) && !claimableAt(m).isAfter(now))
                    .sorted(BY_CLAIMABLE)
                    .limit(limit)
                    .toList();
            if (due.isEmpty()) {
                return new ClaimedBatch(Optional.empty(), List.of());
            }
            // One token per claim statement, as in PostgreSQL.
            FencingToken token = new FencingToken(tokens.incrementAndGet());
            List<ClaimedMessage> claimed = new ArrayList<>();
            for (ScheduledMessage message : due) {
                ScheduledMessage next = TableMoves.move(message, Transition.CLAIM,
                        TableMoves.nothing().withClaim(token, now.plus(lease)), now).orElseThrow();
                store.put(next);
                NostrEvent event = next.event().orElseThrow();
                claimed.add(new ClaimedMessage(new Claim(next.id(), token), next.revision(), next.eventId(),
                        NostrEventJson.write(event), event.kind(), next.owner(), next.channel(), next.dueAt(), now.plus(lease),
                        next.attempts(), store.tombstoned(next.channel()),
                        outcomeUnknown.contains(next.id()) ? EarlierSend.OUTCOME_UNKNOWN : EarlierSend.NONE));
            }
            return new ClaimedBatch(Optional.of(now), claimed);
        }
    }

    @Override
    public List<FinishResult> finish(List<Finish> outcomes) {
        synchronized (store) {
            Instant now = clock.now();
            List<FinishResult> results = new ArrayList<>(outcomes.size());
            for (Finish finish : outcomes) {
                results.add(finishOne(finish, now));
            }
            return results;
        }
    }

    private FinishResult finishOne(Finish finish, Instant now) {
        if (failingWrite.test(finish)) {
            return new FinishResult(Written.FAILED_TO_WRITE, Optional.empty());
        }
        ScheduledMessage stored = store.row(finish.claim().id());
        if (stored == null || !stored.revision().equals(finish.revision())
                || !stored.token().equals(Optional.of(finish.claim().token()))) {
            return new FinishResult(Written.LOST, Optional.empty());
        }
        ScheduleState.Fields parts = TableMoves.nothing();
        Transition transition;
        Written written;
        switch (finish) {
            case Finish.Publish publish -> {
                transition = Transition.PUBLISH;
                written = Written.PUBLISHED;
            }
            case Finish.Retry retry -> {
                Instant retryAt = now.plus(retry.delay());
                boolean expired = Lateness.expired(stored.dueAt(), retry.maxLateness(), retryAt);
                transition = expired ? Transition.EXPIRE : Transition.RETRY;
                parts = expired ? parts.withReason(FailureReason.EXPIRED) : parts.withRetryAt(Optional.of(retryAt));
                written = expired ? Written.EXPIRED : Written.RESCHEDULED;
            }
            case Finish.Fail fail -> {
                transition = Transition.FAIL;
                parts = parts.withReason(fail.reason());
                written = Written.FAILED;
            }
            case Finish.Release release -> {
                transition = Transition.RELEASE;
                written = Written.RESCHEDULED;
            }
            case Finish.Unresolved unresolved -> {
                transition = Transition.RELEASE;
                written = Written.RESCHEDULED;
            }
        }
        Optional<ScheduledMessage> moved = TableMoves.move(stored, transition, parts, now);
        if (moved.isEmpty()) {
            return new FinishResult(Written.LOST, Optional.empty());
        }
        store.put(moved.get());
        if (finish instanceof Finish.Unresolved) {
            outcomeUnknown.add(stored.id());
        }
        recordAttempt(finish, written, stored, now);
        return new FinishResult(written, Optional.of(now));
    }

    private void recordAttempt(Finish finish, Written written, ScheduledMessage stored, Instant now) {
        String why;
        switch (finish) {
            case Finish.Retry retry -> why = retry.why();
            case Finish.Fail fail -> why = fail.why();
            case Finish.Publish publish -> {
                return;
            }
            case Finish.Release release -> {
                return;
            }
            case Finish.Unresolved unresolved -> {
                return;
            }
        }
        if (stored.attempts() > MAX_RECORDED) {
            return;
        }
        AttemptOutcome outcome = switch (written) {
            case RESCHEDULED -> new AttemptOutcome.Retry();
            case EXPIRED -> new AttemptOutcome.Failed(FailureReason.EXPIRED);
            case FAILED -> new AttemptOutcome.Failed(((Finish.Fail) finish).reason());
            case PUBLISHED, LOST, FAILED_TO_WRITE -> throw new IllegalStateException("not an attempt: " + written);
        };
        attempts.computeIfAbsent(stored.id(), id -> new ArrayList<>()).add(new DeliveryAttempt(stored.attempts(),
                stored.revision(), now, outcome, why.isEmpty() ? Optional.empty() : Optional.of(why)));
    }

    @Override
    public List<DeliveryAttempt> attempts(ScheduleId id) {
        synchronized (store) {
            ScheduledMessage message = store.row(id);
            if (message == null) {
                return List.of();
            }
            List<DeliveryAttempt> all = new ArrayList<>(attempts.getOrDefault(id, List.of()));
            if (message.state() instanceof ScheduleState.Published published) {
                all.add(new DeliveryAttempt(Math.max(message.attempts(), 1), message.revision(), published.publishedAt(),
                        new AttemptOutcome.Published(), Optional.empty()));
            }
            return all;
        }
    }

    @Override
    public Set<ScheduleId> renew(Collection<Claim> claims, Duration lease) {
        synchronized (store) {
            Instant now = clock.now();
            Set<ScheduleId> renewed = new HashSet<>();
            for (Claim claim : claims) {
                ScheduledMessage stored = store.row(claim.id());
                if (stored == null || !stored.token().equals(Optional.of(claim.token()))) {
                    continue;
                }
                Optional<ScheduledMessage> moved = TableMoves.move(stored, Transition.RENEW_LEASE,
                        TableMoves.nothing().withClaim(claim.token(), now.plus(lease)), now);
                if (moved.isPresent()) {
                    store.put(moved.get());
                    renewed.add(claim.id());
                }
            }
            return renewed;
        }
    }

    @Override
    public int reap(Duration grace) {
        synchronized (store) {
            Instant now = clock.now();
            Instant cutoff = now.minus(grace);
            int reaped = 0;
            for (ScheduledMessage message : List.copyOf(store.allRows())) {
                boolean expired = message.state().fields().leaseUntil().map(cutoff::isAfter).orElse(false);
                Optional<ScheduledMessage> moved = expired
                        ? TableMoves.move(message, Transition.REAP, TableMoves.nothing(), now) : Optional.empty();
                if (moved.isPresent()) {
                    store.put(moved.get());
                    reaped++;
                }
            }
            return reaped;
        }
    }

    @Override
    public Optional<Instant> nextDueAt() {
        synchronized (store) {
            return store.allRows().stream()
                    .filter(InMemoryDeliveryStore::claimable)
                    .map(InMemoryDeliveryStore::claimableAt)
                    .min(Comparator.naturalOrder());
        }
    }

    /** Whether the claim may take it, by the table (due and retry times aside). */
    private static boolean claimable(ScheduledMessage message) {
        return Transition.CLAIM.startStates().contains(message.state().stateName());
    }

    /** The later of the due time and the retry time. */
    private static Instant claimableAt(ScheduledMessage message) {
        Optional<Instant> retryAt = message.state().fields().retryAt();
        return retryAt.isPresent() && retryAt.get().isAfter(message.dueAt()) ? retryAt.get() : message.dueAt();
    }
}

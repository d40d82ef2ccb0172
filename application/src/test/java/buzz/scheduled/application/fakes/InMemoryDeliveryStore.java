package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.DeliveryOutcome;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The dispatcher's storage port in memory, over the rows of an {@link InMemoryScheduleStore} and under its lock, so
 * an owner's edit and a claim are as atomic against each other as two transactions. Every write is the domain's own
 * transition ({@link ScheduledMessage#claim}, {@code publish}, {@code retryLater}, {@code fail}, {@code release},
 * {@code renewLease}, {@code reap}); the PostgreSQL store must agree with it ({@code DeliveryStoreContract}).
 */
public final class InMemoryDeliveryStore implements DeliveryStore {
    private static final Comparator<ScheduledMessage> BY_CLAIMABLE = Comparator
            .comparing(InMemoryDeliveryStore::claimableAt)
            .thenComparing(m -> m.id().toString());

    private final InMemoryScheduleStore store;
    private final SettableClock clock;
    private final AtomicLong tokens = new AtomicLong();
    private volatile Predicate<Finish> failingWrite = finish -> false;

    /**
     * @param store the rows (and the lock) shared with the owner's store
     * @param clock the store's clock
     */
    public InMemoryDeliveryStore(InMemoryScheduleStore store, SettableClock clock) {
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
                    .filter(m -> m.state() instanceof ScheduleState.Scheduled && !claimableAt(m).isAfter(now))
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
                ScheduledMessage next = moved(message.claim(token, now.plus(lease), now));
                store.put(next);
                NostrEvent event = next.event().orElseThrow();
                claimed.add(new ClaimedMessage(new Claim(next.id(), token), next.revision(), next.eventId(),
                        NostrEventJson.write(event), next.owner(), next.channel(), next.dueAt(), now.plus(lease),
                        next.attempts(), store.tombstoned(next.channel())));
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
                || !(stored.state() instanceof ScheduleState.Sending)) {
            return new FinishResult(Written.LOST, Optional.empty());
        }
        FencingToken token = finish.claim().token();
        DeliveryOutcome outcome = switch (finish) {
            case Finish.Publish publish -> stored.publish(token, now);
            case Finish.Retry retry -> stored.retryLater(token, now.plus(retry.delay()), retry.maxLateness(), now);
            case Finish.Fail fail -> stored.fail(token, fail.reason(), now);
            case Finish.Release release -> stored.release(token, now);
        };
        if (!(outcome instanceof DeliveryOutcome.Moved moved)) {
            return new FinishResult(Written.LOST, Optional.empty());
        }
        store.put(moved.message());
        Written written = switch (moved.message().state()) {
            case ScheduleState.Published p -> Written.PUBLISHED;
            case ScheduleState.Scheduled s -> Written.RESCHEDULED;
            case ScheduleState.Failed f -> finish instanceof Finish.Retry ? Written.EXPIRED : Written.FAILED;
            default -> throw new IllegalStateException("a finish left state " + moved.message().state());
        };
        return new FinishResult(written, Optional.of(now));
    }

    @Override
    public Set<ScheduleId> renew(Collection<Claim> claims, Duration lease) {
        synchronized (store) {
            Instant now = clock.now();
            Set<ScheduleId> renewed = new HashSet<>();
            for (Claim claim : claims) {
                ScheduledMessage stored = store.row(claim.id());
                if (stored != null && stored.renewLease(claim.token(), now.plus(lease), now)
                        instanceof DeliveryOutcome.Moved moved) {
                    store.put(moved.message());
                    renewed.add(claim.id());
                }
            }
            return renewed;
        }
    }

    @Override
    public int reap(Duration grace) {
        synchronized (store) {
            Instant cutoff = clock.now().minus(grace);
            int reaped = 0;
            for (ScheduledMessage message : List.copyOf(store.allRows())) {
                if (message.reap(cutoff) instanceof DeliveryOutcome.Moved moved) {
                    store.put(moved.message());
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
                    .filter(m -> m.state() instanceof ScheduleState.Scheduled)
                    .map(InMemoryDeliveryStore::claimableAt)
                    .min(Comparator.naturalOrder());
        }
    }

    /** The later of the due time and the retry time. */
    private static Instant claimableAt(ScheduledMessage message) {
        if (message.state() instanceof ScheduleState.Scheduled scheduled && scheduled.retryAt().isPresent()
                && scheduled.retryAt().get().isAfter(message.dueAt())) {
            return scheduled.retryAt().get();
        }
        return message.dueAt();
    }

    private static ScheduledMessage moved(DeliveryOutcome outcome) {
        if (outcome instanceof DeliveryOutcome.Moved moved) {
            return moved.message();
        }
        throw new IllegalStateException("the claim selected a row the domain refuses: " + outcome);
    }
}

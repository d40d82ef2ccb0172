package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.support.MonotonicClock;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Wraps one dispatcher's delivery store so a test can stop it in chosen places: freeze the whole "process" right
 * after a claim (every later call blocks, the finisher's renewals and the reaper's too, like a stop-the-world pause),
 * or make claims, renewals or finishing writes fail as an unreachable database would; hold one finishing write so
 * the outcomes behind it gather into the next; and record what each finishing write carried.
 */
final class SteppedDeliveryStore implements DeliveryStore {
    private final DeliveryStore inner;
    final AtomicInteger claimCalls = new AtomicInteger();
    final AtomicInteger nextDueCalls = new AtomicInteger();
    final AtomicInteger renewCalls = new AtomicInteger();
    final AtomicInteger finishCalls = new AtomicInteger();
    /** Reaper rounds that returned. */
    final AtomicInteger reapsDone = new AtomicInteger();
    /** The outcomes of every finishing write asked for, in call order (failed calls included). */
    final List<List<Finish>> finishes = new CopyOnWriteArrayList<>();
    /** How many messages each claim that reached the store took, in call order. */
    final List<Integer> claimSizes = new CopyOnWriteArrayList<>();
    /** The monotonic clock's reading when the latest claim was asked for. */
    volatile long lastClaimAskedNanos;

    private volatile boolean freezeArmed;
    private volatile boolean freezeInside;
    private volatile CountDownLatch thaw;
    private final CountDownLatch froze = new CountDownLatch(1);
    private volatile RuntimeException renewFailure;
    private final AtomicInteger finishFailures = new AtomicInteger();
    private final AtomicInteger claimFailures = new AtomicInteger();
    private volatile CountDownLatch finishHeld;
    private volatile CountDownLatch finishRelease;

    private final MonotonicClock monotonic;

    /** @param monotonic the dispatcher's monotonic clock, read into {@link #lastClaimAskedNanos} */
    SteppedDeliveryStore(DeliveryStore inner, MonotonicClock monotonic) {
        this.inner = inner;
        this.monotonic = monotonic;
    }

    /** The next claim that returns work freezes every later call until {@link #thaw()}. */
    void freezeAfterNextClaim() {
        freezeArmed = true;
    }

    /**
     * Like {@link #freezeAfterNextClaim()}, but the claim call itself blocks after the store committed it, so the
     * dispatcher has claims it has not yet handed to the relay.
     */
    void freezeBeforeNextClaimReturns() {
        freezeInside = true;
        freezeArmed = true;
    }

    /** Waits until the armed freeze happened. */
    void awaitFrozen() throws InterruptedException {
        if (!froze.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the dispatcher never claimed anything to freeze after");
        }
    }

    void thaw() {
        CountDownLatch latch = thaw;
        thaw = null;
        if (latch != null) {
            latch.countDown();
        }
    }

    /** Renewals throw {@code failure} (the store is unreachable) until set to null. */
    void failRenewals(RuntimeException failure) {
        renewFailure = failure;
    }

    /** The next {@code n} finishing writes throw, as a dropped database connection does. */
    void failFinishes(int n) {
        finishFailures.set(n);
    }

    /** The next {@code n} claims throw (the store is unreachable). */
    void failClaims(int n) {
        claimFailures.set(n);
    }

    /**
     * The next finishing write waits (before it reaches the store) until {@link #releaseFinish()}, so outcomes
     * decided meanwhile gather in the finisher and go together into the write after it.
     */
    void holdNextFinish() {
        finishHeld = new CountDownLatch(1);
        finishRelease = new CountDownLatch(1);
    }

    /** Waits until the held finishing write arrived. */
    void awaitFinishHeld() throws InterruptedException {
        if (!finishHeld.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("no finishing write arrived to hold");
        }
    }

    void releaseFinish() {
        CountDownLatch release = finishRelease;
        if (release != null) {
            release.countDown();
        }
    }

    private <T> T step(Supplier<T> call) {
        CountDownLatch latch = thaw;
        if (latch != null) {
            awaitThaw(latch);
        }
        return call.get();
    }

    private static void awaitThaw(CountDownLatch latch) {
        try {
            if (!latch.await(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("test never thawed the frozen dispatcher");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while frozen", e);
        }
    }

    @Override
    public ClaimedBatch claim(int limit, Duration lease) {
        lastClaimAskedNanos = monotonic.nanoTime();
        return step(() -> {
            claimCalls.incrementAndGet();
            if (claimFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("store unreachable (test)");
            }
            ClaimedBatch claimed = inner.claim(limit, lease);
            claimSizes.add(claimed.messages().size());
            if (freezeArmed && !claimed.messages().isEmpty()) {
                freezeArmed = false;
                CountDownLatch latch = new CountDownLatch(1);
                thaw = latch;
                froze.countDown();
                if (freezeInside) {
                    awaitThaw(latch);
                }
            }
            return claimed;
        });
    }

    @Override
    public List<FinishResult> finish(List<Finish> outcomes) {
        return step(() -> {
            finishCalls.incrementAndGet();
            finishes.add(List.copyOf(outcomes));
            CountDownLatch held = finishHeld;
            if (held != null && held.getCount() > 0) {
                held.countDown();
                awaitThaw(finishRelease);
            }
            if (finishFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("connection to the store dropped (test)");
            }
            return inner.finish(outcomes);
        });
    }

    @Override
    public Set<ScheduleId> renew(Collection<Claim> claims, Duration lease) {
        return step(() -> {
            renewCalls.incrementAndGet();
            RuntimeException failure = renewFailure;
            if (failure != null) {
                throw failure;
            }
            return inner.renew(claims, lease);
        });
    }

    @Override
    public int reap(Duration grace) {
        int reaped = step(() -> inner.reap(grace));
        reapsDone.incrementAndGet();
        return reaped;
    }

    @Override
    public Optional<Instant> nextDueAt() {
        return step(() -> {
            nextDueCalls.incrementAndGet();
            return inner.nextDueAt();
        });
    }

    @Override
    public Instant now() {
        return step(inner::now);
    }
}

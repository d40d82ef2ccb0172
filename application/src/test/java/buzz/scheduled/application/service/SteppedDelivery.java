package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.DeliveryUseCase;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Wraps the delivery use case of one dispatcher so a test can stop it in chosen places: freeze the whole
 * "process" right after a claim (every later call blocks, the renewer's and reaper's too, like a stop-the-world
 * pause), hold a send right after its pre-send step, or make renewals or finishing writes fail.
 */
final class SteppedDelivery implements DeliveryUseCase {
    private final DeliveryUseCase inner;
    final AtomicInteger claimCalls = new AtomicInteger();
    final AtomicInteger nextDueCalls = new AtomicInteger();
    final AtomicInteger renewCalls = new AtomicInteger();

    private volatile boolean freezeArmed;
    private volatile CountDownLatch thaw;
    private final CountDownLatch froze = new CountDownLatch(1);
    private volatile CountDownLatch afterGateEntered;
    private volatile CountDownLatch afterGateRelease;
    private volatile RuntimeException renewFailure;
    private final AtomicInteger publishedFailures = new AtomicInteger();
    private final AtomicInteger claimFailures = new AtomicInteger();

    SteppedDelivery(DeliveryUseCase inner) {
        this.inner = inner;
    }

    /** The next claim that returns work freezes every later call until {@link #thaw()}. */
    void freezeAfterNextClaim() {
        freezeArmed = true;
    }

    /**
     * Like {@link #freezeAfterNextClaim()}, but the claim call itself blocks after the store committed it, so
     * the dispatcher has claims it has not yet handed to any send.
     */
    void freezeBeforeNextClaimReturns() {
        freezeInside = true;
        freezeArmed = true;
    }

    private volatile boolean freezeInside;

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

    /** Every send blocks right after its pre-send step answered until {@code release}. */
    void holdAfterGate(CountDownLatch entered, CountDownLatch release) {
        afterGateEntered = entered;
        afterGateRelease = release;
    }

    /** Renewals throw {@code failure} (the store is unreachable) until set to null. */
    void failRenewals(RuntimeException failure) {
        renewFailure = failure;
    }

    /** The next {@code n} {@link #published} writes throw (the connection dropped after the relay accepted). */
    void failPublishedWrites(int n) {
        publishedFailures.set(n);
    }

    /** The next {@code n} claims throw (the store is unreachable). */
    void failClaims(int n) {
        claimFailures.set(n);
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
    public List<ClaimedWork> claimDue(int limit) {
        return step(() -> {
            claimCalls.incrementAndGet();
            if (claimFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("store unreachable (test)");
            }
            List<ClaimedWork> claimed = inner.claimDue(limit);
            if (freezeArmed && !claimed.isEmpty()) {
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
    public GateResult startSending(ClaimedWork work) {
        GateResult result = step(() -> inner.startSending(work));
        CountDownLatch release = afterGateRelease;
        if (release != null) {
            afterGateEntered.countDown();
            try {
                if (!release.await(1, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("test never released the held send");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return result;
    }

    @Override
    public boolean published(ClaimedWork work) {
        return step(() -> {
            if (publishedFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("connection to the store dropped (test)");
            }
            return inner.published(work);
        });
    }

    @Override
    public boolean retryLater(ClaimedWork work, String why) {
        return step(() -> inner.retryLater(work, why));
    }

    @Override
    public boolean failed(ClaimedWork work, FailureReason reason, String why) {
        return step(() -> inner.failed(work, reason, why));
    }

    @Override
    public boolean release(ClaimedWork work) {
        return step(() -> inner.release(work));
    }

    @Override
    public Set<ScheduleId> renewLeases(Collection<ClaimedWork> claims) {
        return step(() -> {
            renewCalls.incrementAndGet();
            RuntimeException failure = renewFailure;
            if (failure != null) {
                throw failure;
            }
            return inner.renewLeases(claims);
        });
    }

    @Override
    public int reapExpiredLeases() {
        return step(inner::reapExpiredLeases);
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

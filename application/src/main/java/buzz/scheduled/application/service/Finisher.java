package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.DeliveryObserver.DeliveryReport;
import buzz.scheduled.application.port.out.DeliveryObserver.Outcome;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DeliveryStore.Claim;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.DeliveryStore.FinishResult;
import buzz.scheduled.application.support.MonotonicClock;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The dispatcher's one writer: takes decided outcomes as they arrive (relay answers, pre-send verdicts, claims given
 * back), records every set drained at once with one {@link DeliveryStore#finish} call, and renews the leases of the
 * claims still in flight every lease/3. Being the only thread that writes this process's claimed rows, it never
 * waits on itself in a lock cycle.
 *
 * <p>Recovery (docs/delivery.md): when the store cannot be reached, the whole set is tried again with backoff
 * (50 ms doubling to 2 s) for as long as the claims' leases last; an outcome whose own write failed while its
 * neighbours' succeeded is tried again alone with the same backoff. An outcome still unwritten once its lease and
 * the reaper's grace are over is dropped: the reaper has returned the row, and the fenced write could no longer land.
 */
final class Finisher {
    private static final System.Logger LOG = System.getLogger(Finisher.class.getName());
    /** Most outcomes in one grouped write. */
    static final int MAX_BATCH = 2_000;
    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Queued by {@link #timeMoved()}: not an outcome, only a reason to look at the clock again. */
    private static final Done TIME_MOVED = new Done(null, null, "time-moved");

    /**
     * One decided outcome waiting to be written.
     *
     * @param item   the claim it is for
     * @param finish what to write
     * @param kind   what the relay (or the pre-send check) answered, as {@link DeliveryReport#relayKind()}
     */
    record Done(InFlight item, Finish finish, String kind) {
    }

    private final DeliveryStore store;
    private final DeliveryWindow window;
    private final DeliveryObserver observer;
    private final DispatcherSettings settings;
    private final Tally tally;
    private final MonotonicClock clock;
    private final LinkedBlockingQueue<Done> queue = new LinkedBlockingQueue<>();
    /** Outcomes whose write failed, waiting for their next try; only the finisher thread touches it. */
    private final List<Pending> retrying = new ArrayList<>();
    private final long renewEveryNanos;
    private final long reapGraceNanos;
    private volatile boolean stopping;
    private volatile long stopDeadline;
    private Thread thread;

    Finisher(DeliveryStore store, DeliveryWindow window, DeliveryObserver observer, DispatcherSettings settings,
             Tally tally, MonotonicClock clock) {
        this.clock = clock;
        this.store = store;
        this.window = window;
        this.observer = observer;
        this.settings = settings;
        this.tally = tally;
        this.renewEveryNanos = settings.renewEvery().toNanos();
        this.reapGraceNanos = settings.delivery().reapGrace().toNanos();
    }

    void start() {
        // The first renewal is due a renewal period after start() on the caller's clock reading, not after the thread
        // first runs: a thread scheduled late (a loaded host, or a test stepping the clock meanwhile) renews no later.
        long firstRenewal = clock.nanoTime() + renewEveryNanos;
        thread = Thread.ofPlatform().name("buzz-finisher").daemon().start(() -> run(firstRenewal));
    }

    /** Queues an outcome; any thread. */
    void offer(Done done) {
        queue.add(done);
    }

    /**
     * Makes the finisher look at its clock again at once (its waits for the next renewal or retry are timed in real
     * time): for tests that step a {@link MonotonicClock} instead of letting time pass.
     */
    void timeMoved() {
        queue.add(TIME_MOVED);
    }

    /**
     * Writes what is queued and what is waiting for another try, then ends; by the deadline (on the finisher's clock)
     * at the latest (what is still unwritten then is left to the reaper).
     *
     * @return whether everything was written
     */
    boolean stop(long deadline) {
        stopDeadline = deadline;
        stopping = true;
        thread.interrupt();
        try {
            long left = deadline - clock.nanoTime();
            if (left > 0) {
                thread.join(Duration.ofNanos(left));
            }
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(Duration.ofSeconds(1));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return queue.isEmpty() && retrying.isEmpty();
    }

    /**
     * After {@link #stop}: the outcomes decided but not written by the deadline, by claim (the ones waiting to be
     * written, and those waiting for another try once the finisher's thread has ended). They leave this finisher.
     */
    Map<InFlight, Finish> unwritten() {
        Map<InFlight, Finish> outcomes = new LinkedHashMap<>();
        List<Done> queued = new ArrayList<>();
        queue.drainTo(queued);
        if (!thread.isAlive()) {
            for (Pending pending : retrying) {
                outcomes.put(pending.done.item(), pending.done.finish());
            }
            retrying.clear();
        }
        for (Done done : queued) {
            if (done == TIME_MOVED) {
                continue;
            }
            outcomes.putIfAbsent(done.item(), done.finish());
        }
        return outcomes;
    }

    private void run(long firstRenewal) {
        long nextRenewal = firstRenewal;
        List<Done> drained = new ArrayList<>();
        List<Pending> batch = new ArrayList<>();
        while (true) {
            try {
                long now = clock.nanoTime();
                if (stopping && ((queue.isEmpty() && retrying.isEmpty()) || now - stopDeadline >= 0)) {
                    return;
                }
                long wait = Math.min(nextRenewal, nextRetry(now)) - now;
                Done first = queue.poll(Math.max(0, wait), TimeUnit.NANOSECONDS);
                if (first != null) {
                    drained.add(first);
                    queue.drainTo(drained, MAX_BATCH - 1);
                    for (Done done : drained) {
                        if (done != TIME_MOVED) {
                            batch.add(new Pending(done, 0, 0));
                        }
                    }
                    drained.clear();
                }
                takeDueRetries(batch, clock.nanoTime());
                if (!batch.isEmpty()) {
                    write(batch);
                    batch.clear();
                }
                if (clock.nanoTime() - nextRenewal >= 0) {
                    renewLeases();
                    nextRenewal = clock.nanoTime() + renewEveryNanos;
                }
            } catch (InterruptedException e) {
                // stop() interrupts a wait; the loop's first check decides whether anything is left to write.
                if (!stopping) {
                    return;
                }
            } catch (RuntimeException e) {
                // A bug, not the store (write() handles store failures): keep the outcomes for another try.
                tally.errors.incrementAndGet();
                LOG.log(Level.ERROR, "the finisher failed; its outcomes are tried again", e);
                batch.forEach(this::retryLater);
                batch.clear();
            }
        }
    }

    private void write(List<Pending> batch) {
        List<Finish> finishes = new ArrayList<>(batch.size());
        for (Pending pending : batch) {
            finishes.add(pending.done.finish());
        }
        List<FinishResult> results;
        try {
            results = store.finish(finishes);
        } catch (RuntimeException e) {
            // Counted once the retries are planned, so whoever sees the count (a test stepping the clock) sees them.
            batch.forEach(this::retryLater);
            tally.writeFailures.incrementAndGet();
            LOG.log(Level.WARNING, "recording {0} delivery outcomes failed ({1}); trying again with backoff",
                    Integer.toString(batch.size()), e.toString());
            return;
        }
        if (results.size() != batch.size()) {
            throw new IllegalStateException("the store answered " + results.size() + " of " + batch.size()
                    + " outcomes");
        }
        for (int i = 0; i < batch.size(); i++) {
            Pending pending = batch.get(i);
            FinishResult result = results.get(i);
            if (result.written() == DeliveryStore.Written.FAILED_TO_WRITE) {
                retryLater(pending);
                tally.writeFailures.incrementAndGet();
                LOG.log(Level.WARNING, "recording the outcome of {0} failed alone; trying it again with backoff",
                        pending.done.item().message.claim().id());
                continue;
            }
            recorded(pending.done, result);
        }
    }

    private void recorded(Done done, FinishResult result) {
        window.remove(done.item());
        ClaimedMessage message = done.item().message;
        if (!result.recorded()) {
            tally.lostAfterSend.incrementAndGet();
            LOG.log(Level.WARNING, "the outcome of {0} (token {1}) was not recorded: the claim was lost",
                    message.claim().id(), message.claim().token());
            return;
        }
        Outcome outcome = switch (result.written()) {
            case PUBLISHED -> {
                tally.published.incrementAndGet();
                yield Outcome.PUBLISHED;
            }
            case RESCHEDULED -> {
                if (done.finish() instanceof Finish.Release) {
                    tally.released.incrementAndGet();
                    yield null;
                }
                tally.retried.incrementAndGet();
                yield Outcome.RETRIED;
            }
            case EXPIRED -> {
                tally.expired.incrementAndGet();
                yield Outcome.EXPIRED;
            }
            case FAILED -> {
                FailureReason reason = ((Finish.Fail) done.finish()).reason();
                yield switch (reason) {
                    case RELAY_REJECTED -> {
                        tally.rejected.incrementAndGet();
                        yield Outcome.REJECTED;
                    }
                    case EXPIRED -> {
                        tally.expired.incrementAndGet();
                        yield Outcome.EXPIRED;
                    }
                    case ACCESS_DENIED -> {
                        tally.ended.incrementAndGet();
                        yield Outcome.ACCESS_DENIED;
                    }
                    case CHANNEL_DELETED, MEMBER_REMOVED -> {
                        tally.ended.incrementAndGet();
                        yield Outcome.CHANNEL_DELETED;
                    }
                };
            }
            case LOST, FAILED_TO_WRITE -> throw new IllegalStateException("not a recorded outcome: " + result);
        };
        if (outcome == null) {
            return;
        }
        Optional<Duration> lateness = outcome == Outcome.PUBLISHED
                ? result.at().map(at -> Duration.between(message.dueAt(), at))
                : Optional.empty();
        try {
            observer.outcome(new DeliveryReport(message.claim().id(), message.eventId(), message.channel(),
                    message.revision().number(), message.attempts(), outcome, done.kind(), why(done.finish()),
                    lateness));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the delivery observer failed", e);
        }
    }

    private static String why(Finish finish) {
        return switch (finish) {
            case Finish.Retry retry -> retry.why();
            case Finish.Fail fail -> fail.why();
            case Finish.Publish publish -> "";
            case Finish.Release release -> "";
            case Finish.Unresolved unresolved -> "";
        };
    }

    /** Puts an outcome aside for another try, unless its lease and the reaper's grace are over. */
    private void retryLater(Pending pending) {
        long now = clock.nanoTime();
        if (now - (pending.done.item().leaseEnds + reapGraceNanos) > 0) {
            window.remove(pending.done.item());
            tally.abandoned.incrementAndGet();
            LOG.log(Level.WARNING, "gave up recording the outcome of {0}: its lease is over and the reaper returns it",
                    pending.done.item().message.claim().id());
            return;
        }
        long delay = Math.min(MAX_RETRY_NANOS, FIRST_RETRY_NANOS << Math.min(pending.tries, 10));
        retrying.add(new Pending(pending.done, pending.tries + 1, now + delay));
    }

    private long nextRetry(long now) {
        long next = now + renewEveryNanos;
        for (Pending pending : retrying) {
            if (pending.at - next < 0) {
                next = pending.at;
            }
        }
        return next;
    }

    private void takeDueRetries(List<Pending> batch, long now) {
        Iterator<Pending> it = retrying.iterator();
        while (it.hasNext() && batch.size() < MAX_BATCH) {
            Pending pending = it.next();
            if (pending.at - now <= 0) {
                it.remove();
                batch.add(pending);
            }
        }
    }

    /**
     * One renewal over every claim in flight; claims the store no longer knows are marked lost, and the ones it renewed
     * get their lease end moved on. A claim still unanswered two leases after it was made (a relay adapter that broke
     * its promise to answer) is no longer renewed: it is left to the reaper and its place in the window freed.
     */
    void renewLeases() {
        List<InFlight> held = window.snapshot();
        if (held.isEmpty()) {
            return;
        }
        long asked = clock.nanoTime();
        long leaseNanos = settings.delivery().lease().toNanos();
        List<Claim> claims = new ArrayList<>(held.size());
        List<InFlight> renewing = new ArrayList<>(held.size());
        for (InFlight item : held) {
            if (asked - item.claimedAt > 2 * leaseNanos) {
                item.lost = true;
                window.remove(item);
                tally.abandoned.incrementAndGet();
                LOG.log(Level.ERROR, "{0} got no answer within two leases of its claim; left to the reaper",
                        item.message.claim().id());
                continue;
            }
            claims.add(item.message.claim());
            renewing.add(item);
        }
        if (claims.isEmpty()) {
            return;
        }
        try {
            Set<ScheduleId> renewed = store.renew(claims, settings.delivery().lease());
            tally.renewals.incrementAndGet();
            for (InFlight item : renewing) {
                if (renewed.contains(item.message.claim().id())) {
                    item.leaseEnds = asked + leaseNanos;
                } else if (!item.lost) {
                    item.lost = true;
                    tally.leasesLost.incrementAndGet();
                }
            }
        } catch (RuntimeException e) {
            tally.renewalFailures.incrementAndGet();
            LOG.log(Level.WARNING, "renewing {0} leases failed: {1}", Integer.toString(claims.size()), e.toString());
        }
    }

    /**
     * An outcome on its way to the store.
     *
     * @param tries how often its write failed so far
     * @param at    the finisher's clock at its next try (for one waiting in {@link #retrying})
     */
    private record Pending(Done done, int tries, long at) {
    }
}

package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.DeliveryCountsUseCase;
import buzz.scheduled.application.port.in.DeliveryUseCase;
import buzz.scheduled.application.port.in.DeliveryUseCase.ClaimedWork;
import buzz.scheduled.application.port.in.DeliveryUseCase.GateResult;
import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.DeliveryObserver.DeliveryReport;
import buzz.scheduled.application.port.out.DeliveryObserver.Outcome;
import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.port.out.DueWorkSignal.Wake;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.ScheduleStore.Claim;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Turns due work into published events (SPEC §3.6–3.8, DELIVERY.md): a claim loop on its own thread, one
 * virtual thread per claimed message for the send, a lease renewer and a reaper on their own scheduler
 * threads.
 *
 * <p>The claim loop takes batches through {@link DeliveryUseCase#claimDue} (committed before any relay I/O),
 * never more than the free send slots, so every claim starts at once. Each send passes the fenced pre-send
 * step, publishes with the budget that step granted, and records the relay's answer with a fenced write;
 * no store call is open while the relay is being waited for. When nothing is claimable the loop sleeps until
 * the next due time (computed on the store's clock), woken early by the {@link DueWorkSignal}, and never
 * longer than the backstop poll.
 *
 * <p>The send deadline (what was left of the lease less the safety margin) is measured on a monotonic clock from
 * just before the pre-send step was asked, and is checked right before publishing; a send whose lease renewal
 * reported the claim lost, or whose deadline passed while it stalled, publishes nothing. The relay then gets the
 * publish timeout from that moment, or less if the deadline is nearer, so a slow pre-send step does not shorten
 * the relay's time to answer. The residual risk (a stall after that check) is described in docs/delivery.md.
 */
public final class Dispatcher implements DeliveryCountsUseCase {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final DeliveryUseCase delivery;
    private final RelayPublisher relay;
    private final DueWorkSignal signal;
    private final DispatcherSettings settings;
    private final LongSupplier monotonicNanos;
    private final long publishTimeoutNanos;
    private final DeliveryObserver observer;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a send finishes (a slot frees up) and when a stop is requested. */
    private final Condition changed = lock.newCondition();
    private final Map<Claim, InFlight> inFlight = new LinkedHashMap<>();
    private final Tally tally = new Tally();

    private volatile boolean stopping;
    private boolean started;
    private Thread claimLoop;
    private ExecutorService senders;
    private ScheduledExecutorService renewer;
    private ScheduledExecutorService reaper;

    /**
     * A dispatcher measuring send deadlines on {@link System#nanoTime()}.
     *
     * @param delivery the delivery steps (a {@link DeliveryService} built with {@code settings.delivery()})
     * @param relay    where events are published
     * @param signal   wake-ups for nearer work; owned by the caller, who closes it after {@link #stop}
     */
    public Dispatcher(DeliveryUseCase delivery, RelayPublisher relay, DueWorkSignal signal,
                      DispatcherSettings settings) {
        this(delivery, relay, signal, settings, System::nanoTime);
    }

    /**
     * A dispatcher with an explicit monotonic clock for send deadlines (tests stall a send with it).
     *
     * @param monotonicNanos a monotonic nanosecond reading, like {@link System#nanoTime()}
     */
    public Dispatcher(DeliveryUseCase delivery, RelayPublisher relay, DueWorkSignal signal,
                      DispatcherSettings settings, LongSupplier monotonicNanos) {
        this(delivery, relay, signal, settings, monotonicNanos, DeliveryObserver.NONE);
    }

    /**
     * A dispatcher that tells {@code observer} of every recorded outcome (metrics, the outcome log line).
     *
     * @param observer called once per recorded outcome, after it was written
     */
    public Dispatcher(DeliveryUseCase delivery, RelayPublisher relay, DueWorkSignal signal,
                      DispatcherSettings settings, LongSupplier monotonicNanos, DeliveryObserver observer) {
        if (observer == null) {
            throw new IllegalArgumentException("a dispatcher needs an observer (DeliveryObserver.NONE for none)");
        }
        this.observer = observer;
        if (delivery == null || relay == null || signal == null || settings == null || monotonicNanos == null) {
            throw new IllegalArgumentException("a dispatcher needs delivery, relay, signal, settings and a clock");
        }
        this.delivery = delivery;
        this.relay = relay;
        this.signal = signal;
        this.settings = settings;
        this.monotonicNanos = monotonicNanos;
        this.publishTimeoutNanos = settings.delivery().publishTimeout().toNanos();
    }

    /**
     * Starts the claim loop, the renewer (every lease/3) and the reaper.
     *
     * @throws IllegalStateException when started before
     */
    public void start() {
        lock.lock();
        try {
            if (started) {
                throw new IllegalStateException("dispatcher was already started");
            }
            started = true;
        } finally {
            lock.unlock();
        }
        senders = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("buzz-send-", 0).factory());
        renewer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("buzz-lease-renewer").daemon().factory());
        reaper = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("buzz-lease-reaper").daemon().factory());
        long renewNanos = settings.renewEvery().toNanos();
        renewer.scheduleWithFixedDelay(this::renewLeases, renewNanos, renewNanos, TimeUnit.NANOSECONDS);
        long reapNanos = settings.reapEvery().toNanos();
        reaper.scheduleWithFixedDelay(this::reapExpiredLeases, 0, reapNanos, TimeUnit.NANOSECONDS);
        claimLoop = Thread.ofPlatform().name("buzz-dispatcher").daemon().start(this::runClaimLoop);
    }

    /**
     * Graceful shutdown (SPEC §3.8): stops claiming, gives back claims whose send has not started, lets sends
     * already past the pre-send step finish within {@code bound}, then stops the renewer and the reaper.
     * Sends still unfinished after {@code bound} are left to the reaper of this or another node (their event
     * may be sent again, which the relay answers {@code duplicate:}).
     *
     * @return what was left behind
     * @throws IllegalStateException when never started
     */
    public Shutdown stop(Duration bound) {
        lock.lock();
        try {
            if (!started) {
                throw new IllegalStateException("dispatcher was never started");
            }
            stopping = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        long deadline = System.nanoTime() + bound.toNanos();
        signal.wakeUp();
        joinClaimLoop(deadline);
        int unfinished;
        lock.lock();
        try {
            long left = deadline - System.nanoTime();
            while (!inFlight.isEmpty() && left > 0) {
                left = changed.awaitNanos(left);
            }
            unfinished = inFlight.size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            unfinished = inFlight.size();
        } finally {
            lock.unlock();
        }
        senders.shutdown();
        renewer.shutdownNow();
        reaper.shutdownNow();
        if (unfinished > 0) {
            LOG.log(Level.WARNING, "{0} sends were still in flight after the shutdown bound {1}; the reaper will "
                    + "return them", unfinished, bound);
        }
        return new Shutdown(tally.released.get(), unfinished, !claimLoop.isAlive());
    }

    private void joinClaimLoop(long deadline) {
        try {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                claimLoop.join(Duration.ofNanos(left));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** How many claims are held right now (claimed and not yet finished). */
    public int inFlight() {
        lock.lock();
        try {
            return inFlight.size();
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@link #stop} was called. */
    boolean stopRequested() {
        return stopping;
    }

    /** Whether the claim loop has ended (after a stop). */
    boolean claimLoopEnded() {
        Thread loop = claimLoop;
        return loop != null && !loop.isAlive();
    }

    /** What this dispatcher has done since it started (for metrics and tests). */
    public Counts counts() {
        return tally.snapshot();
    }

    @Override
    public DeliveryCounts deliveryCounts() {
        Counts counts = tally.snapshot();
        return new DeliveryCounts(counts.claimed(), counts.sent(), counts.published(), counts.rejected(),
                counts.retried(), counts.fenceRejections(), counts.reaped(), counts.errors());
    }

    // ---------------------------------------------------------------------------------------------------
    // The claim loop

    private void runClaimLoop() {
        boolean dueButNotClaimed = false;
        while (!stopping && !Thread.currentThread().isInterrupted()) {
            try {
                int room = awaitRoom();
                if (stopping || room == 0) {
                    continue;
                }
                int want = Math.min(settings.claimBatch(), room);
                List<ClaimedWork> claimed = delivery.claimDue(want);
                tally.claimed.addAndGet(claimed.size());
                for (ClaimedWork work : claimed) {
                    dispatch(work);
                }
                if (claimed.size() == want) {
                    dueButNotClaimed = false;
                    continue;
                }
                dueButNotClaimed = sleepUntilDue(dueButNotClaimed);
            } catch (RuntimeException e) {
                tally.errors.incrementAndGet();
                LOG.log(Level.ERROR, "claim loop failed; retrying in " + settings.errorPause(), e);
                pause(settings.errorPause());
            }
        }
    }

    /**
     * Blocks until at least one send slot is free or a stop is requested; returns the free slots (0 when
     * interrupted, which ends the loop).
     */
    private int awaitRoom() {
        lock.lock();
        try {
            while (!stopping && inFlight.size() >= settings.maxInFlight()) {
                changed.await();
            }
            return Math.max(0, settings.maxInFlight() - inFlight.size());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sleeps until the next due time on the store's clock (at most the backstop poll), or until notified of
     * nearer work. Due times are re-checked by the next claim, which uses the store's clock, so waking a
     * little early only costs a query.
     *
     * @param dueButNotClaimed whether the previous pass also found work due that the claim did not return
     * @return whether this pass found work already due that the claim did not return
     */
    private boolean sleepUntilDue(boolean dueButNotClaimed) {
        Optional<Instant> next = delivery.nextDueAt();
        Instant now = delivery.now();
        Duration sleep = settings.backstopPoll();
        Instant target = now.plus(sleep);
        if (next.isPresent()) {
            Duration until = Duration.between(now, next.get());
            if (!until.isPositive()) {
                // Became due after the claim looked, or another node holds it mid-claim: look once more at
                // once, then give the other claimant a moment.
                if (!dueButNotClaimed) {
                    return true;
                }
                sleep = CONTENDED_PAUSE;
                target = now;
            } else if (until.compareTo(sleep) < 0) {
                sleep = until;
                target = next.get();
            }
        }
        waitForWork(sleep, target);
        return false;
    }

    private static final Duration CONTENDED_PAUSE = Duration.ofMillis(20);

    /** Waits up to {@code sleep}; a notification of work not before {@code target} does not end the wait. */
    private void waitForWork(Duration sleep, Instant target) {
        long wakeAt = System.nanoTime() + sleep.toNanos();
        while (!stopping) {
            long left = wakeAt - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Wake wake = signal.awaitWork(Duration.ofNanos(left));
            if (wake instanceof Wake.Notified notified
                    && (notified.nearest().isEmpty() || notified.nearest().get().isBefore(target))) {
                tally.wakeUps.incrementAndGet();
                return;
            }
        }
    }

    /**
     * Waits after a failure without the signal (which may be what failed); notifications stay pending for the
     * next sleep, and a stop ends the pause.
     */
    private void pause(Duration duration) {
        lock.lock();
        try {
            long left = duration.toNanos();
            while (!stopping && left > 0) {
                left = changed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    private void dispatch(ClaimedWork work) {
        InFlight entry = new InFlight(work);
        lock.lock();
        try {
            inFlight.put(work.claim(), entry);
        } finally {
            lock.unlock();
        }
        try {
            senders.execute(() -> send(entry));
        } catch (RejectedExecutionException e) {
            giveBack(entry);
            finished(entry);
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // One send

    private void send(InFlight entry) {
        ClaimedWork work = entry.work;
        try {
            if (stopping) {
                giveBack(entry);
                return;
            }
            if (entry.lost) {
                tally.fenceRejections.incrementAndGet();
                return;
            }
            // The budget is measured from before the pre-send step asked the store, which read its clock
            // later: the local deadline can only end earlier than the lease, never after it.
            long gateAsked = monotonicNanos.getAsLong();
            GateResult gate = delivery.startSending(work);
            switch (gate) {
                case GateResult.Send send -> publishAndRecord(entry, send, gateAsked);
                case GateResult.Dropped dropped -> {
                    tally.fenceRejections.incrementAndGet();
                    LOG.log(Level.DEBUG, "not sending {0}: {1}", work.id(), dropped.why());
                }
                case GateResult.Ended ended -> {
                    tally.ended.incrementAndGet();
                    report(work, ended(ended), "none", "", Optional.empty());
                    LOG.log(Level.INFO, "{0} ended {1} before sending", work.id(),
                            ended.message().state().wireName());
                }
                case GateResult.Deferred deferred -> {
                    tally.deferred.incrementAndGet();
                    report(work, Outcome.RETRIED, "none", deferred.why(), Optional.empty());
                    LOG.log(Level.WARNING, "{0} deferred: {1}", work.id(), deferred.why());
                }
            }
        } catch (RuntimeException e) {
            // A store failure mid-way: the claim's lease runs out and the reaper returns it.
            tally.errors.incrementAndGet();
            LOG.log(Level.ERROR, "delivery of " + work.id() + " (token " + work.token() + ") failed", e);
        } finally {
            finished(entry);
        }
    }

    private void publishAndRecord(InFlight entry, GateResult.Send send, long gateAsked) {
        ClaimedWork work = entry.work;
        long deadline = gateAsked + send.budget().toNanos();
        // The last check before the socket: a claim reported lost or a deadline passed while this thread
        // stalled means someone else may own the message now.
        long left = deadline - monotonicNanos.getAsLong();
        if (entry.lost || left <= 0) {
            tally.notSent.incrementAndGet();
            LOG.log(Level.WARNING, "not publishing {0}: {1}", work.id(),
                    entry.lost ? "its lease was lost" : "its send deadline passed before publishing");
            if (!entry.lost && delivery.retryLater(work, "send deadline passed before publishing")) {
                report(work, Outcome.RETRIED, "not-sent", "send deadline passed before publishing", Optional.empty());
            }
            return;
        }
        PublishResult result;
        try {
            // The relay gets the whole publish timeout from now, unless the lease deadline comes first.
            result = relay.publish(send.event(), Duration.ofNanos(Math.min(left, publishTimeoutNanos)));
        } catch (RuntimeException e) {
            result = new PublishResult.Transient("publisher failed: " + e);
        }
        tally.sent.incrementAndGet();
        boolean recorded = switch (result) {
            case PublishResult.Published published -> count(delivery.published(work), tally.published);
            case PublishResult.Rejected rejected -> count(delivery.failed(work, FailureReason.RELAY_REJECTED,
                    rejected.prefix() + ": " + rejected.message()), tally.rejected);
            case PublishResult.Transient failure -> count(delivery.retryLater(work, failure.reason()), tally.retried);
        };
        if (recorded) {
            report(work, result);
        } else {
            // Someone else owns the message now; the event we sent has the same id as theirs, so the relay
            // de-duplicates it.
            tally.lostAfterSend.incrementAndGet();
            LOG.log(Level.WARNING, "the outcome of {0} (token {1}) was not recorded: the claim was lost",
                    work.id(), work.token());
        }
    }

    /** Tells the observer of a recorded relay answer; lateness on the store's clock. */
    private void report(ClaimedWork work, PublishResult result) {
        switch (result) {
            case PublishResult.Published published -> report(work, Outcome.PUBLISHED,
                    published.duplicate() ? "duplicate" : "ok", published.message(),
                    Optional.of(Duration.between(work.dueAt(), delivery.now())));
            case PublishResult.Rejected rejected -> report(work, Outcome.REJECTED, rejected.prefix(),
                    rejected.prefix() + ": " + rejected.message(), Optional.empty());
            case PublishResult.Transient failure -> report(work, Outcome.RETRIED,
                    failure.reason().split(":", 2)[0].strip(), failure.reason(), Optional.empty());
        }
    }

    private void report(ClaimedWork work, Outcome outcome, String relayKind, String detail,
                        Optional<Duration> lateness) {
        try {
            observer.outcome(new DeliveryReport(work.id(), work.event().id(), work.claimed().channel(),
                    work.revision().number(), work.attempts(), outcome, relayKind, detail, lateness));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the delivery observer failed for " + work.id(), e);
        }
    }

    private static Outcome ended(GateResult.Ended ended) {
        return switch (ended.message().failureReason().orElse(FailureReason.EXPIRED)) {
            case EXPIRED -> Outcome.EXPIRED;
            case ACCESS_DENIED, MEMBER_REMOVED -> Outcome.ACCESS_DENIED;
            case CHANNEL_DELETED -> Outcome.CHANNEL_DELETED;
            case RELAY_REJECTED -> Outcome.REJECTED;
        };
    }

    private static boolean count(boolean recorded, AtomicLong counter) {
        if (recorded) {
            counter.incrementAndGet();
        }
        return recorded;
    }

    private void giveBack(InFlight entry) {
        try {
            if (delivery.release(entry.work)) {
                tally.released.incrementAndGet();
            }
        } catch (RuntimeException e) {
            tally.errors.incrementAndGet();
            LOG.log(Level.ERROR, "could not release " + entry.work.id() + "; its lease will run out", e);
        }
    }

    private void finished(InFlight entry) {
        lock.lock();
        try {
            inFlight.remove(entry.work.claim(), entry);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // Renewer and reaper (each on its own scheduler thread; also called directly by tests)

    /** One renewal round over every claim in flight; claims the store did not renew are marked lost. */
    void renewLeases() {
        List<InFlight> snapshot;
        lock.lock();
        try {
            snapshot = new ArrayList<>(inFlight.values());
        } finally {
            lock.unlock();
        }
        if (snapshot.isEmpty()) {
            return;
        }
        try {
            Set<ScheduleId> renewed = delivery.renewLeases(snapshot.stream().map(entry -> entry.work).toList());
            tally.renewals.incrementAndGet();
            for (InFlight entry : snapshot) {
                if (!renewed.contains(entry.work.id()) && !entry.lost) {
                    entry.lost = true;
                    tally.leasesLost.incrementAndGet();
                }
            }
        } catch (RuntimeException e) {
            // The store is unreachable: the sends keep their own deadlines, which end before the lease does.
            tally.renewalFailures.incrementAndGet();
            LOG.log(Level.WARNING, "lease renewal failed for " + snapshot.size() + " claims", e);
        }
    }

    /** One reaper round; wakes the claim loop when it returned anything. */
    void reapExpiredLeases() {
        try {
            int reaped = delivery.reapExpiredLeases();
            if (reaped > 0) {
                tally.reaped.addAndGet(reaped);
                LOG.log(Level.INFO, "returned {0} expired claims to scheduled", reaped);
                signal.wakeUp();
            }
        } catch (RuntimeException e) {
            tally.errors.incrementAndGet();
            LOG.log(Level.WARNING, "reaping expired leases failed", e);
        }
    }

    /** A claim held by this dispatcher until its send finishes. */
    private static final class InFlight {
        final ClaimedWork work;
        /** Set by the renewer when the store no longer knows this claim: never publish after that. */
        volatile boolean lost;

        InFlight(ClaimedWork work) {
            this.work = work;
        }
    }

    /**
     * What a {@link #stop} left behind.
     *
     * @param released         claims given back unstarted over the dispatcher's life (shutdown mostly)
     * @param unfinished       sends still running when the bound ran out
     * @param claimLoopStopped whether the claim loop ended within the bound
     */
    public record Shutdown(long released, int unfinished, boolean claimLoopStopped) {
    }

    /**
     * Counters since start.
     *
     * @param claimed         claims taken
     * @param sent            publish calls made (each after a successful pre-send step and deadline check)
     * @param published       recorded {@code published}
     * @param rejected        recorded {@code failed relay_rejected}
     * @param retried         sent back to {@code scheduled} (or {@code failed expired}) after a transient answer
     * @param ended           ended in the pre-send step (expired, access denied)
     * @param deferred        put off because the access policy could not answer
     * @param fenceRejections pre-send steps that found the claim no longer held: nothing sent
     * @param notSent         passed the pre-send step but not sent: lease lost or send deadline passed
     * @param lostAfterSend   sent, but the outcome could not be recorded because the claim was gone
     * @param released        unstarted claims given back
     * @param renewals        renewal rounds that reached the store
     * @param renewalFailures renewal rounds that failed
     * @param leasesLost      claims the renewer found were no longer held
     * @param reaped          expired claims this node's reaper returned
     * @param wakeUps         sleeps ended early by a notification
     * @param errors          unexpected failures (store errors), each logged
     */
    public record Counts(long claimed, long sent, long published, long rejected, long retried, long ended,
                         long deferred, long fenceRejections, long notSent, long lostAfterSend, long released,
                         long renewals, long renewalFailures, long leasesLost, long reaped, long wakeUps,
                         long errors) {
    }

    private static final class Tally {
        final AtomicLong claimed = new AtomicLong();
        final AtomicLong sent = new AtomicLong();
        final AtomicLong published = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        final AtomicLong retried = new AtomicLong();
        final AtomicLong ended = new AtomicLong();
        final AtomicLong deferred = new AtomicLong();
        final AtomicLong fenceRejections = new AtomicLong();
        final AtomicLong notSent = new AtomicLong();
        final AtomicLong lostAfterSend = new AtomicLong();
        final AtomicLong released = new AtomicLong();
        final AtomicLong renewals = new AtomicLong();
        final AtomicLong renewalFailures = new AtomicLong();
        final AtomicLong leasesLost = new AtomicLong();
        final AtomicLong reaped = new AtomicLong();
        final AtomicLong wakeUps = new AtomicLong();
        final AtomicLong errors = new AtomicLong();

        Counts snapshot() {
            return new Counts(claimed.get(), sent.get(), published.get(), rejected.get(), retried.get(),
                    ended.get(), deferred.get(), fenceRejections.get(), notSent.get(), lostAfterSend.get(),
                    released.get(), renewals.get(), renewalFailures.get(), leasesLost.get(), reaped.get(),
                    wakeUps.get(), errors.get());
        }
    }
}

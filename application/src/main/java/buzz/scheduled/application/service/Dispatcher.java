package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.DeliveryCountsUseCase;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.DatabaseAvailability;
import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedBatch;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.port.out.DueWorkSignal.Wake;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.application.support.MonotonicClock;
import buzz.scheduled.domain.schedule.PreSendCheck;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Turns due work into published events as a pipeline (docs/delivery.md, "The hot path"): one claim loop, a window of
 * frames in flight on the relay connection, and one finisher that records each drained set of answers with one
 * statement.
 *
 * <p>The claim loop waits until at least half of the window is free, then claims that many due messages straight
 * into {@code sending} in one statement (committed before any relay I/O; the statement also reads whether each
 * channel is deleted). Each claimed message passes the {@link PreSendCheck} on the database clock of that statement
 * and, when the access policy asks to be consulted, the access policy ({@link ClaimRouter} takes each message on from
 * the claim); then its stored event text is queued on the
 * relay connection with a send deadline: what was left of the lease less the safety margin, measured on the
 * monotonic clock from just before the claim was asked, so it can only end before the lease does. The relay adapter
 * checks that deadline when the frame reaches the socket. No database connection is held while the relay is waited
 * for. When nothing is claimable the loop sleeps until the next due time (computed on the store's clock), woken
 * early by the {@link DueWorkSignal}, and never longer than the backstop poll, or than {@link #DEAF_POLL} while the
 * signal is not {@linkplain DueWorkSignal#listening() listening} (other processes' changes then reach this one only
 * by polling). A failing claim loop logs the failure once with its cause and once more when it recovers. While the
 * {@link DatabaseAvailability} says the database takes no writes (unreachable, or read-only after a failover) the
 * claim loop and the reaper pause instead of failing, logging the pause once and the resumption once; the claim loop
 * looks again every {@link #OUTAGE_POLL}, so claiming resumes within that of the database's return. A claim that
 * fails because the database became unavailable just before the watch saw it is no error either: after its error
 * pause the claim loop finds the outage known and pauses like that.
 *
 * <p>The {@link Finisher} records every outcome with a write fenced by (id, fencing token, revision), renews the
 * leases of what is in flight, and retries its own failed writes within the lease. A reaper returns expired leases
 * of any node to {@code scheduled}. A graceful {@link #stop} gives back at once every claim whose frame was never
 * written or whose access check is still under way, and at the end of its grace every claim whose frame was written
 * and never answered, marked so that the next claim asks the relay first.
 */
public final class Dispatcher implements DeliveryCountsUseCase {
    // Numbers are passed to the logger as strings: System.Logger formats with MessageFormat, which would print 1,004.
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());
    /** How long the claim loop waits before looking again when another claimer holds due rows. */
    private static final Duration CONTENDED_PAUSE = Duration.ofMillis(20);
    /** The longest sleep while the due-work signal does not hear other processes: one second. */
    static final Duration DEAF_POLL = Duration.ofSeconds(1);
    /** How often a claim loop paused by a database outage looks whether the database takes writes again. */
    static final Duration OUTAGE_POLL = Duration.ofMillis(100);
    private static final Comparator<ClaimedMessage> BY_DUE = Comparator.comparing(ClaimedMessage::dueAt);

    private final DeliveryStore store;
    private final RelayPublisher relay;
    private final DueWorkSignal signal;
    private final DatabaseAvailability database;
    private final StoreClock storeClock;
    /** Every deadline on the delivery path (send, lease, retry, renewal, stop) is a reading of this clock. */
    private final MonotonicClock monotonic;
    private final DispatcherSettings settings;
    private final DeliverySettings delivery;
    private final Tally tally = new Tally();
    private final DeliveryWindow window;
    private final Finisher finisher;
    private final PendingAccessChecks checking = new PendingAccessChecks();
    private final ClaimRouter router;

    private final ReentrantLock lifecycle = new ReentrantLock();
    /** Signalled when a stop is requested (ends an error pause). */
    private final Condition stopRequested = lifecycle.newCondition();
    private volatile boolean stopping;
    private boolean started;
    private Thread claimLoop;
    private ExecutorService accessChecks;
    private ScheduledExecutorService reaper;

    /**
     * A dispatcher (not started).
     *
     * @param store       the delivery store
     * @param relay       where events are published
     * @param access      asked again right before publishing, when it {@link AccessPolicy#checksBeforeDelivery()}
     * @param relayLimits the relay's NIP-11 limits: a frame longer than its {@code max_message_length} is never sent
     * @param signal      wake-ups for nearer work; owned by the caller, who closes it after {@link #stop}
     * @param observer    told of every recorded outcome
     * @param settings    the window, batches, polls and the delivery timing
     */
    public Dispatcher(DeliveryStore store, RelayPublisher relay, AccessPolicy access, RelayLimits relayLimits,
                      DueWorkSignal signal, DeliveryObserver observer, DispatcherSettings settings) {
        this(store, relay, access, relayLimits, signal, observer, settings, DatabaseAvailability.ASSUMED, store::now);
    }

    /**
     * A dispatcher (not started) that follows a database watch.
     *
     * @param database   whether to claim at all (paused while the database takes no writes); told of every answered
     *                   claim, look-up and reap, which stand in for the watch's own checks, and asked to run the
     *                   reaper in its check slots
     * @param storeClock the store's clock as known without a round trip, for planning sleeps (the claims themselves
     *                   decide on the database's clock)
     */
    public Dispatcher(DeliveryStore store, RelayPublisher relay, AccessPolicy access, RelayLimits relayLimits,
                      DueWorkSignal signal, DeliveryObserver observer, DispatcherSettings settings,
                      DatabaseAvailability database, StoreClock storeClock) {
        this(store, relay, access, relayLimits, signal, observer, settings, database, storeClock,
                MonotonicClock.SYSTEM);
    }

    /**
     * A dispatcher (not started) that follows a database watch and reads its deadlines from {@code monotonic}.
     *
     * @param monotonic the clock of every deadline; the relay checks the send deadlines it is handed against the same
     *                  clock ({@link MonotonicClock#SYSTEM} for the real relay); tests pass a clock they step
     */
    public Dispatcher(DeliveryStore store, RelayPublisher relay, AccessPolicy access, RelayLimits relayLimits,
                      DueWorkSignal signal, DeliveryObserver observer, DispatcherSettings settings,
                      DatabaseAvailability database, StoreClock storeClock, MonotonicClock monotonic) {
        if (store == null || relay == null || access == null || relayLimits == null || signal == null
                || observer == null || settings == null || database == null || storeClock == null
                || monotonic == null) {
            throw new IllegalArgumentException("a dispatcher needs a store, a relay, an access policy, relay limits, "
                    + "a signal, an observer, settings, the database's availability, store and monotonic clocks");
        }
        this.monotonic = monotonic;
        this.store = store;
        this.relay = relay;
        this.signal = signal;
        this.database = database;
        this.storeClock = storeClock;
        this.settings = settings;
        this.delivery = settings.delivery();
        this.window = new DeliveryWindow(settings.maxInFlight(), settings.claimWhenFree(), settings.maxQueuedBytes(),
                monotonic);
        this.finisher = new Finisher(store, window, observer, settings, tally, monotonic);
        // The access checks' executor exists from start() on; a check is only ever started after it.
        this.router = new ClaimRouter(relay, access, relayLimits, delivery, tally, window, finisher, checking,
                task -> accessChecks.execute(task), () -> stopping);
    }

    /**
     * Starts the claim loop, the finisher (which also renews leases every lease/3) and the reaper.
     *
     * @throws IllegalStateException when started before
     */
    public void start() {
        lifecycle.lock();
        try {
            if (started) {
                throw new IllegalStateException("dispatcher was already started");
            }
            started = true;
        } finally {
            lifecycle.unlock();
        }
        accessChecks = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("buzz-access-check-", 0).factory());
        // In the database watch's check slots where it takes them, so the reaper's statement spares a check.
        if (!database.runInCheckSlots(settings.reapEvery(), () -> !stopping && reapExpiredLeases())) {
            reaper = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().name("buzz-lease-reaper").daemon().factory());
            long reapNanos = settings.reapEvery().toNanos();
            reaper.scheduleWithFixedDelay(this::reapExpiredLeases, 0, reapNanos, TimeUnit.NANOSECONDS);
        }
        finisher.start();
        claimLoop = Thread.ofPlatform().name("buzz-dispatcher").daemon().start(this::runClaimLoop);
    }

    /**
     * Graceful shutdown: stops claiming, takes back from the relay connection every frame not yet written and gives
     * those claims back at once, together with the claims whose access check is still under way (another node claims
     * them), waits within {@code bound} for the answers to the frames already written and records them, then stops the
     * finisher and the reaper. Claims still unanswered after {@code bound} are given back with one more statement,
     * marked {@link DeliveryStore.EarlierSend#OUTCOME_UNKNOWN}: another node claims them at once and asks the relay
     * whether it has each event before sending it. Only when that statement fails are they left to the reaper.
     *
     * @return what was left behind
     * @throws IllegalStateException when never started
     */
    public Shutdown stop(Duration bound) {
        lifecycle.lock();
        try {
            if (!started) {
                throw new IllegalStateException("dispatcher was never started");
            }
            stopping = true;
            stopRequested.signalAll();
        } finally {
            lifecycle.unlock();
        }
        long deadline = monotonic.nanoTime() + bound.toNanos();
        window.wake();
        signal.wakeUp();
        joinClaimLoop(deadline);
        int withdrawn = relay.withdrawUnsent();
        // Checks that may take the callback's whole timeout: their claims go back now, their answers are ignored.
        for (InFlight item : checking.takeAll()) {
            router.release(item);
        }
        window.awaitEmpty(deadline);
        finisher.stop(deadline);
        accessChecks.shutdown();
        if (reaper != null) {
            reaper.shutdownNow();
        }
        int unresolved = giveBackUnanswered(bound);
        return new Shutdown(tally.released.get(), withdrawn, unresolved, window.count(), !claimLoop.isAlive());
    }

    /**
     * At the end of a stop's grace: the claims still held (frames written and unanswered, or outcomes the finisher
     * could not write in time) are written with one statement: a decided outcome as decided, the rest
     * {@link Finish.Unresolved}.
     *
     * @return how many were given back unresolved
     */
    private int giveBackUnanswered(Duration bound) {
        List<InFlight> held = window.snapshot();
        if (held.isEmpty()) {
            return 0;
        }
        Map<InFlight, Finish> decided = finisher.unwritten();
        List<Finish> outcomes = new ArrayList<>(held.size());
        int unresolved = 0;
        for (InFlight item : held) {
            Finish finish = decided.get(item);
            if (finish == null) {
                finish = new Finish.Unresolved(item.message.claim(), item.message.revision());
                unresolved++;
            }
            outcomes.add(finish);
        }
        try {
            List<DeliveryStore.FinishResult> results = store.finish(outcomes);
            for (int i = 0; i < held.size(); i++) {
                if (results.get(i).recorded()) {
                    window.remove(held.get(i));
                }
            }
            tally.unresolved.addAndGet(unresolved);
            LOG.log(Level.INFO, "{0} claims still unanswered after the shutdown bound {1} were given back to be asked"
                    + " about by the next claim", Integer.toString(unresolved), bound);
            return unresolved;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "{0} claims were still in flight after the shutdown bound {1} and could not be "
                    + "given back ({2}); the reaper will return them", Integer.toString(held.size()), bound,
                    e.toString());
            return 0;
        }
    }

    private void joinClaimLoop(long deadline) {
        try {
            long left = deadline - monotonic.nanoTime();
            if (left > 0) {
                claimLoop.join(Duration.ofNanos(left));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Makes the finisher and a {@link #stop}, whose waits run in real time, read a clock a test stepped again. */
    void timeMoved() {
        finisher.timeMoved();
        window.wake();
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

    /** How many claims are held right now (claimed and not yet recorded). */
    public int inFlight() {
        return window.count();
    }

    /** What this dispatcher has done since it started (for metrics and tests). */
    public DispatcherCounts counts() {
        return tally.snapshot();
    }

    @Override
    public DeliveryCounts deliveryCounts() {
        DispatcherCounts counts = tally.snapshot();
        return new DeliveryCounts(counts.claimed(), counts.sent(), counts.published(), counts.rejected(),
                counts.retried(), counts.lostAfterSend(), counts.reaped(), counts.errors());
    }

    // ---------------------------------------------------------------------------------------------------
    // The claim loop

    private void runClaimLoop() {
        boolean dueButNotClaimed = false;
        long failures = 0;
        long failingSince = 0;
        long pausedSince = 0;
        boolean paused = false;
        while (!stopping) {
            if (!database.takesWrites()) {
                if (!paused) {
                    paused = true;
                    pausedSince = monotonic.nanoTime();
                    LOG.log(Level.INFO, "claiming paused: the database takes no writes now; resumes when it does");
                }
                pause(OUTAGE_POLL);
                continue;
            }
            if (paused) {
                paused = false;
                LOG.log(Level.INFO, "claiming resumed after a pause of {0} ms",
                        Long.toString((monotonic.nanoTime() - pausedSince) / 1_000_000));
            }
            try {
                int room = window.awaitRoom(() -> stopping);
                if (stopping || room == 0) {
                    continue;
                }
                int want = Math.min(settings.claimBatch(), window.fitting(room));
                long asked = monotonic.nanoTime();
                ClaimedBatch batch = store.claim(want, delivery.lease());
                database.answered();
                if (failures > 0) {
                    LOG.log(Level.INFO, "claim loop recovered after {0} failed attempt(s) over {1} ms",
                            Long.toString(failures), Long.toString((monotonic.nanoTime() - failingSince) / 1_000_000));
                    failures = 0;
                }
                int claimed = batch.messages().size();
                tally.claimed.addAndGet(claimed);
                List<ClaimedMessage> messages = batch.messages().stream().sorted(BY_DUE).toList();
                for (ClaimedMessage message : messages) {
                    router.admit(message, batch.now().orElseThrow(), asked);
                }
                if (claimed == want) {
                    dueButNotClaimed = false;
                    continue;
                }
                dueButNotClaimed = sleepUntilDue(dueButNotClaimed);
            } catch (RuntimeException e) {
                pause(settings.errorPause());
                if (!database.takesWrites()) {
                    // The database watch has seen the outage this claim met meanwhile: the pause above logs it.
                    LOG.log(Level.DEBUG, "a claim failed as the database became unavailable: {0}", e.toString());
                    continue;
                }
                tally.errors.incrementAndGet();
                if (failures++ == 0) {
                    failingSince = monotonic.nanoTime();
                    LOG.log(Level.ERROR, "claim loop failed; retrying every " + settings.errorPause().toMillis()
                            + " ms, logged again when it recovers", e);
                } else {
                    LOG.log(Level.DEBUG, "claim loop still failing ({0} attempts): {1}", Long.toString(failures),
                            e.toString());
                }
            }
        }
    }

    /**
     * Sleeps until the next due time on the store's clock (at most the backstop poll), or until notified of nearer
     * work. Due times are re-checked by the next claim, which uses the store's clock, so waking a little early only
     * costs a query.
     *
     * @param dueButNotClaimed whether the previous pass also found work due that the claim did not return
     * @return whether this pass found work already due that the claim did not return
     */
    private boolean sleepUntilDue(boolean dueButNotClaimed) {
        Optional<Instant> next = store.nextDueAt();
        database.answered();
        Instant now = storeClock.now();
        Duration sleep = signal.listening() ? settings.backstopPoll()
                : min(settings.backstopPoll(), DEAF_POLL);
        Instant target = now.plus(sleep);
        if (next.isPresent()) {
            Duration until = Duration.between(now, next.get());
            if (!until.isPositive()) {
                // Became due after the claim looked, or another node holds it mid-claim: look once more at once,
                // then give the other claimant a moment.
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

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** Waits up to {@code sleep}; a notification of work not before {@code target} does not end the wait. */
    private void waitForWork(Duration sleep, Instant target) {
        long wakeAt = monotonic.nanoTime() + sleep.toNanos();
        while (!stopping) {
            long left = wakeAt - monotonic.nanoTime();
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

    /** Waits after a failure without the signal (which may be what failed); a stop ends the pause. */
    private void pause(Duration duration) {
        lifecycle.lock();
        try {
            long left = duration.toNanos();
            while (!stopping && left > 0) {
                left = stopRequested.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lifecycle.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // Renewer and reaper (also called directly by tests)

    /** One renewal round over every claim in flight (the finisher runs it every lease/3). */
    void renewLeases() {
        finisher.renewLeases();
    }

    /**
     * One reaper round; wakes the claim loop when it returned anything. Skipped while the database takes no writes.
     *
     * @return whether the database answered the reap
     */
    boolean reapExpiredLeases() {
        if (!database.takesWrites()) {
            return false; // the watch has logged the outage; a reap now could only fail
        }
        try {
            int reaped = store.reap(delivery.reapGrace());
            database.answered();
            if (reaped > 0) {
                tally.reaped.addAndGet(reaped);
                LOG.log(Level.INFO, "returned {0} expired claims to scheduled", Integer.toString(reaped));
                signal.wakeUp();
            }
            return true;
        } catch (RuntimeException e) {
            tally.errors.incrementAndGet();
            LOG.log(Level.WARNING, "reaping expired leases failed: {0}", e.toString());
            return false;
        }
    }

    /**
     * What a {@link #stop} left behind.
     *
     * @param released         claims given back unsent over the dispatcher's life (shutdown mostly)
     * @param withdrawn        frames taken back from the relay connection unwritten by this stop
     * @param unresolved       claims whose frames were written and unanswered when the bound ran out, given back to
     *                         be asked about by the next claim
     * @param unfinished       claims this stop could not give back (left to the reaper)
     * @param claimLoopStopped whether the claim loop ended within the bound
     */
    public record Shutdown(long released, int withdrawn, int unresolved, int unfinished, boolean claimLoopStopped) {
    }
}

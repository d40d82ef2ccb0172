package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.Health;
import buzz.scheduled.application.port.out.DatabaseAvailability;
import buzz.scheduled.application.port.out.DatabaseProbe;
import buzz.scheduled.application.port.out.DatabaseProbe.Reading;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.application.port.out.WallClock;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Checks the database on a timer (one {@link DatabaseProbe} read at most every {@link Settings#every()}) and keeps
 * what it found in memory: whether the database answers and takes writes, and the difference between this host's
 * clock and the database's.
 *
 * <p>Readiness, metrics and the HTTP API read {@link #databaseStatus()}, which never waits for the database: a read
 * still unanswered after {@link Settings#answerWithin()} already makes it {@link Health#SLOW} (not ready), a failed
 * read {@link Health#DOWN} and an answer that refuses writes {@link Health#READ_ONLY} (both an outage: requests refused
 * at once, claiming paused through {@link #takesWrites()}). The skew is measured around each read's round trip (the
 * database's clock against the midpoint of the local readings before and after; the error is at most half the round
 * trip, and reads slower than {@link Settings#maxSkewRoundTrip()} are not used for it), and {@link #now()} gives the
 * store's clock as this host's clock minus that skew, so owner-side time decisions (due times, NIP-98's window) need
 * no round trip of their own.
 *
 * <p>Idle cost (docs/benchmarks.md, "Idle cost"): while the database is up, delivery's statements stand in for
 * reads. A statement that was answered ({@link #answered()}) counts as one, and the lease reaper runs in the watch's
 * own check slots ({@link #runInCheckSlots}). Reads are paced like a leaky bucket of one statement per
 * {@link Settings#every()}: the next read waits {@code every} after the latest answer, and longer while a burst of
 * statements (the backstop poll's claim and look-up) has used up the budget, but never longer than twice
 * {@code every}. An idle node so issues about one statement a second in all, and a change is seen within one second
 * but rarely two. During an outage reads go on every {@code every} whatever else happens, since only they end it.
 * {@link #recheck()} (a pooled session was refused a write) reads at once on a new session.
 *
 * <p>Logs once per change of state, never once per check: the database becoming unreachable or read-only (WARNING)
 * and taking writes again (INFO), the skew passing {@link Settings#skewWarning()} (WARNING, since NIP-42 AUTH events
 * are dated by this host's clock) and coming back within it (INFO).
 */
public final class DatabaseWatch implements StoreClock, DatabaseStatusUseCase, DatabaseAvailability, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DatabaseWatch.class.getName());

    /**
     * Timing of the checks.
     *
     * @param every            time from the latest answer (a read's start, or a statement's, see
     *                         {@link DatabaseWatch#answered()}) to the next read, and the budget of one statement per
     *                         {@code every} that reads fill while the database is up (&gt; 0)
     * @param answerWithin     a read unanswered for longer makes the database unreachable (&gt; 0)
     * @param maxSkewRoundTrip reads whose round trip took longer are not used to measure the skew (&gt; 0)
     * @param skewWarning      a skew beyond this (either way) is logged as a warning (&gt; 0)
     */
    public record Settings(Duration every, Duration answerWithin, Duration maxSkewRoundTrip, Duration skewWarning) {
        /** A read every second, answered within a second; skews from reads under 250 ms; a warning past 5 s. */
        public static final Settings DEFAULT = new Settings(Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofMillis(250), Duration.ofSeconds(5));

        public Settings {
            if (every == null || answerWithin == null || maxSkewRoundTrip == null || skewWarning == null
                    || !every.isPositive() || !answerWithin.isPositive() || !maxSkewRoundTrip.isPositive()
                    || !skewWarning.isPositive()) {
                throw new IllegalArgumentException("database watch settings must all be positive, got " + every
                        + ", " + answerWithin + ", " + maxSkewRoundTrip + ", " + skewWarning);
            }
        }
    }

    private final DatabaseProbe probe;
    private final WallClock clock;
    /** Monotonic nanoseconds for the timer's pauses, which a step of the wall clock must not stretch. */
    private final LongSupplier ticker;
    private final Settings settings;
    private final CountDownLatch closing = new CountDownLatch(1);
    /** Released to end the timer's pause early: a {@link #recheck()} or {@link #close()}. */
    private final Semaphore wakeUps = new Semaphore(0);
    private final Object lock = new Object();

    // Guarded by lock.
    private Instant readStartedAt;
    private Health known = Health.DOWN;
    private Optional<String> problem = Optional.of("the database has not been checked yet");
    private Instant stateSince;
    private Instant lastAnswerAt;
    private boolean everRead;
    private long lastReadTick;
    private long lastAnswerTick;
    /** When the statements so far are paid for at one per {@code every} (a leaky bucket's theoretical time). */
    private long paidUntilTick;
    private boolean recheckWanted;
    private BooleanSupplier slotStatement;
    private long slotPeriodNanos;
    private long slotLastTick;
    private boolean slotEverRun;
    private Optional<Duration> skew = Optional.empty();
    private boolean skewWarned;
    private boolean checked;

    private Thread thread;

    /**
     * A watch that has not checked yet (unreachable until its first answer); call {@link #check()} once to know
     * the state before serving, then {@link #start()}.
     */
    public DatabaseWatch(DatabaseProbe probe, WallClock clock, Settings settings) {
        this(probe, clock, System::nanoTime, settings);
    }

    /** As {@link #DatabaseWatch(DatabaseProbe, WallClock, Settings)}, timing its pauses on {@code ticker} (tests). */
    DatabaseWatch(DatabaseProbe probe, WallClock clock, LongSupplier ticker, Settings settings) {
        if (probe == null || clock == null || ticker == null || settings == null) {
            throw new IllegalArgumentException("a database watch needs a probe, a clock, a ticker and settings");
        }
        this.probe = probe;
        this.clock = clock;
        this.ticker = ticker;
        this.settings = settings;
        this.stateSince = clock.now();
    }

    /**
     * Reads once now and records the result (a read slower than the skew bound is repeated once, since a first read
     * may include opening the connection). Called by the timer thread; callers may call it too.
     */
    public void check() {
        Sample sample = read();
        if (answered(sample.reading()) && sample.roundTrip().compareTo(settings.maxSkewRoundTrip()) > 0) {
            Sample again = read();
            if (answered(again.reading())) {
                sample = again;
            }
        }
        record(sample);
    }

    private static boolean answered(Reading reading) {
        return switch (reading) {
            case Reading.Answered answered -> true;
            case Reading.ReadOnly readOnly -> true;
            case Reading.Failed failed -> false;
        };
    }

    /** Starts checking on a daemon thread (see the class comment for when); returns at once. */
    public synchronized void start() {
        if (thread != null || closing.getCount() == 0) {
            throw new IllegalStateException("the database watch was already started or closed");
        }
        thread = Thread.ofPlatform().daemon().name("buzz-database-watch").start(() -> {
            while (closing.getCount() > 0) {
                Duration wait = untilNextCheck();
                if (wait.isPositive()) {
                    awaitWakeUp(wait);
                    continue;
                }
                try {
                    if (!runSlotStatementIfDue()) {
                        check();
                    }
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "database check failed unexpectedly", e);
                }
            }
        });
    }

    /**
     * How long the timer waits before its next check: zero when a {@link #recheck()} is pending; else, in an outage,
     * until {@link Settings#every()} after the latest read began, and while the database is up, until {@code every}
     * after the latest answer or later while earlier statements are not yet paid for, but at most twice {@code every}
     * after the latest answer.
     */
    Duration untilNextCheck() {
        long now = ticker.getAsLong();
        long every = settings.every().toNanos();
        synchronized (lock) {
            if (recheckWanted || !everRead) {
                return Duration.ZERO;
            }
            long due;
            if (known == Health.UP) {
                long latest = lastAnswerTick - lastReadTick > 0 ? lastAnswerTick : lastReadTick;
                long paid = paidUntilTick - (latest + 2 * every) > 0 ? latest + 2 * every : paidUntilTick;
                due = paid - (latest + every) > 0 ? paid : latest + every;
            } else {
                due = lastReadTick + every;
            }
            long left = due - now;
            return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
        }
    }

    /** Counts one statement at {@code tick} against the budget of one per {@code every} (callers hold the lock). */
    private void spend(long tick) {
        long every = settings.every().toNanos();
        long from = paidUntilTick - tick > 0 ? paidUntilTick : tick;
        long paid = from + every;
        paidUntilTick = paid - (tick + 2 * every) > 0 ? tick + 2 * every : paid;
    }

    @Override
    public boolean runInCheckSlots(Duration period, BooleanSupplier statement) {
        if (period == null || !period.isPositive() || statement == null) {
            throw new IllegalArgumentException("a statement for the check slots needs a positive period");
        }
        synchronized (lock) {
            if (slotStatement != null) {
                throw new IllegalStateException("the database watch already runs a statement in its check slots");
            }
            slotStatement = statement;
            slotPeriodNanos = period.toNanos();
        }
        return true;
    }

    /**
     * Runs the statement taken by {@link #runInCheckSlots} instead of a read, when the database is up and the statement
     * is due.
     *
     * @return whether it ran and was answered (else the caller reads)
     */
    private boolean runSlotStatementIfDue() {
        long now = ticker.getAsLong();
        BooleanSupplier statement;
        synchronized (lock) {
            if (slotStatement == null || known != Health.UP || recheckWanted
                    || slotEverRun && now - slotLastTick < slotPeriodNanos) {
                return false;
            }
            statement = slotStatement;
            slotEverRun = true;
            slotLastTick = now;
            readStartedAt = clock.now();
        }
        boolean answered;
        try {
            answered = statement.getAsBoolean();
        } catch (RuntimeException e) {
            answered = false;
        }
        synchronized (lock) {
            readStartedAt = null;
        }
        return answered;
    }

    /**
     * Reads again at once, on a new session: a pooled session was just refused a write (SQLSTATE 25006), so the
     * database may have turned read-only (a failover) — or that one session kept a read-only default from before.
     * Returns at once; the timer thread reads.
     */
    public void recheck() {
        probe.renewSession();
        synchronized (lock) {
            recheckWanted = true;
        }
        wakeUps.release();
    }

    /** Stops the timer thread (a read in flight finishes on its own). Idempotent. */
    @Override
    public void close() {
        closing.countDown();
        wakeUps.release();
        Thread running;
        synchronized (this) {
            running = thread;
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** This host's clock minus the latest measured skew; this host's clock itself before the first measurement. */
    @Override
    public Instant now() {
        Instant local = clock.now();
        Optional<Duration> measured;
        synchronized (lock) {
            measured = skew;
        }
        return measured.map(local::minus).orElse(local);
    }

    @Override
    public boolean takesWrites() {
        Health health = databaseStatus().health();
        return health == Health.UP || health == Health.SLOW;
    }

    @Override
    public void answered() {
        Instant now = clock.now();
        long tick = ticker.getAsLong();
        synchronized (lock) {
            if (known == Health.UP) {
                lastAnswerTick = tick;
                spend(tick);
                if (lastAnswerAt == null || now.isAfter(lastAnswerAt)) {
                    lastAnswerAt = now;
                }
            }
        }
    }

    @Override
    public DatabaseStatus databaseStatus() {
        Instant now = clock.now();
        synchronized (lock) {
            if (readStartedAt != null) {
                Duration waiting = Duration.between(readStartedAt, now);
                if (waiting.compareTo(settings.answerWithin()) > 0) {
                    return new DatabaseStatus(known == Health.UP ? Health.SLOW : known,
                            Optional.of("the database has not answered for " + waiting.toMillis() + " ms"
                                    + problem.map(reason -> " (before that: " + reason + ")").orElse("")),
                            known == Health.UP ? readStartedAt : stateSince, skew);
                }
            }
            if (known == Health.UP && lastAnswerAt != null) {
                Duration silent = Duration.between(lastAnswerAt, now);
                Duration stale = settings.every().plus(settings.answerWithin()).multipliedBy(3);
                if (readStartedAt == null && silent.compareTo(stale) > 0) {
                    return new DatabaseStatus(Health.SLOW, Optional.of("the database has not been checked for "
                            + silent.toMillis() + " ms"), lastAnswerAt, skew);
                }
            }
            return new DatabaseStatus(known, problem, stateSince, skew);
        }
    }

    private Sample read() {
        Instant before = clock.now();
        synchronized (lock) {
            // Paced from its start: with `every` between starts an idle node reads once a second.
            readStartedAt = before;
            recheckWanted = false;
            everRead = true;
            lastReadTick = ticker.getAsLong();
            spend(lastReadTick);
        }
        Reading reading;
        try {
            reading = probe.read();
        } catch (RuntimeException e) {
            reading = new Reading.Failed("the probe failed: " + e);
        }
        Instant after = clock.now();
        return new Sample(before, after, reading);
    }

    private void record(Sample sample) {
        String message = null;
        Level level = Level.INFO;
        String skewMessage = null;
        Level skewLevel = Level.INFO;
        synchronized (lock) {
            readStartedAt = null;
            boolean firstCheck = !checked;
            checked = true;
            Health was = known;
            Instant wasSince = stateSince;
            Optional<Instant> databaseNow = switch (sample.reading()) {
                case Reading.Answered answered -> {
                    known = Health.UP;
                    problem = Optional.empty();
                    lastAnswerAt = sample.after();
                    yield Optional.of(answered.databaseNow());
                }
                case Reading.ReadOnly readOnly -> {
                    known = Health.READ_ONLY;
                    problem = Optional.of("the database refuses writes: " + readOnly.reason());
                    yield Optional.of(readOnly.databaseNow());
                }
                case Reading.Failed failed -> {
                    known = Health.DOWN;
                    problem = Optional.of(failed.reason());
                    yield Optional.empty();
                }
            };
            if (firstCheck || was != known) {
                stateSince = known == Health.DOWN ? sample.before() : sample.after();
                long outageMillis = Duration.between(wasSince, sample.after()).toMillis();
                switch (known) {
                    case UP -> {
                        if (!firstCheck) {
                            message = was == Health.READ_ONLY
                                    ? "the database takes writes again after " + outageMillis + " ms read-only"
                                    : "the database answers again after " + outageMillis + " ms unreachable";
                        }
                    }
                    case READ_ONLY -> {
                        level = Level.WARNING;
                        message = "the database answers but refuses writes (" + problem.orElseThrow() + "); readiness"
                                + " fails, owner requests answer 503 and claiming pauses until it takes writes again";
                    }
                    case DOWN -> {
                        level = Level.WARNING;
                        message = "the database does not answer (" + problem.orElseThrow() + "); readiness fails and"
                                + " owner requests answer 503 until it does";
                    }
                    case SLOW -> throw new IllegalStateException("a read never records SLOW");
                }
            }
            if (databaseNow.isPresent() && sample.roundTrip().compareTo(settings.maxSkewRoundTrip()) <= 0) {
                Instant midpoint = sample.before().plus(sample.roundTrip().dividedBy(2));
                Duration measured = Duration.between(databaseNow.get(), midpoint);
                skew = Optional.of(measured);
                boolean beyond = measured.abs().compareTo(settings.skewWarning()) > 0;
                if (beyond && !skewWarned) {
                    skewLevel = Level.WARNING;
                    skewMessage = "this host's clock is " + describe(measured) + " the database's (measured over a "
                            + sample.roundTrip().toMillis() + " ms round trip); due times and NIP-98 request"
                            + " signatures follow the database's clock, but NIP-42 AUTH events are dated by this"
                            + " host's: fix its time synchronisation";
                } else if (!beyond && skewWarned) {
                    skewMessage = "this host's clock is within " + settings.skewWarning().toSeconds()
                            + " s of the database's again (" + describe(measured) + ")";
                }
                skewWarned = beyond;
            }
        }
        if (message != null) {
            LOG.log(level, message);
        }
        if (skewMessage != null) {
            LOG.log(skewLevel, skewMessage);
        }
    }

    private static String describe(Duration skew) {
        long millis = skew.toMillis();
        return String.format(java.util.Locale.ROOT, "%.3f s %s", Math.abs(millis) / 1000.0,
                millis >= 0 ? "ahead of" : "behind");
    }

    private void awaitWakeUp(Duration wait) {
        try {
            if (wakeUps.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                wakeUps.drainPermits();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closing.countDown();
        }
    }

    /** One read, bracketed by this host's clock. */
    private record Sample(Instant before, Instant after, Reading reading) {
        Duration roundTrip() {
            return Duration.between(before, after);
        }
    }
}

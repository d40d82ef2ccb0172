package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.Health;
import buzz.scheduled.application.port.out.DatabaseProbe;
import buzz.scheduled.application.port.out.DatabaseProbe.Reading;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.application.port.out.WallClock;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Checks the database on a timer (one {@link DatabaseProbe} read every {@link Settings#every()}) and keeps what it
 * found in memory: whether the database answers, and the difference between this host's clock and the database's.
 *
 * <p>Readiness, metrics and the HTTP API read {@link #databaseStatus()}, which never waits for the database: a read
 * still unanswered after {@link Settings#answerWithin()} already makes it {@link Health#SLOW} (not ready), a failed
 * read {@link Health#DOWN} (requests refused at once). The skew is measured around
 * each read's round trip (the database's clock against the midpoint of the local readings before and after; the
 * error is at most half the round trip, and reads slower than {@link Settings#maxSkewRoundTrip()} are not used for
 * it), and {@link #now()} gives the store's clock as this host's clock minus that skew, so owner-side due-time
 * decisions need no round trip of their own.
 *
 * <p>Logs once per change of state, never once per check: the database becoming unreachable (WARNING) and
 * reachable again (INFO), the skew passing {@link Settings#skewWarning()} (WARNING, since NIP-98's 60-second check and
 * NIP-42 AUTH use this host's clock) and coming back within it (INFO).
 */
public final class DatabaseWatch implements StoreClock, DatabaseStatusUseCase, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DatabaseWatch.class.getName());

    /**
     * Timing of the checks.
     *
     * @param every            pause between the end of one read and the start of the next (&gt; 0)
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
    private final Settings settings;
    private final CountDownLatch closing = new CountDownLatch(1);
    private final Object lock = new Object();

    // Guarded by lock.
    private Instant readStartedAt;
    private Optional<String> failure = Optional.of("the database has not been checked yet");
    private Instant stateSince;
    private Instant lastAnswerAt;
    private Optional<Duration> skew = Optional.empty();
    private boolean skewWarned;
    private boolean checked;

    private Thread thread;

    /**
     * A watch that has not checked yet (unreachable until its first answer); call {@link #check()} once to know
     * the state before serving, then {@link #start()}.
     */
    public DatabaseWatch(DatabaseProbe probe, WallClock clock, Settings settings) {
        if (probe == null || clock == null || settings == null) {
            throw new IllegalArgumentException("a database watch needs a probe, a clock and settings");
        }
        this.probe = probe;
        this.clock = clock;
        this.settings = settings;
        this.stateSince = clock.now();
    }

    /**
     * Reads once now and records the result (a read slower than the skew bound is repeated once, since a first read
     * may include opening the connection). Called by the timer thread; callers may call it too.
     */
    public void check() {
        Sample sample = read();
        if (sample.reading() instanceof Reading.Answered && sample.roundTrip().compareTo(settings.maxSkewRoundTrip()) > 0) {
            Sample again = read();
            if (again.reading() instanceof Reading.Answered) {
                sample = again;
            }
        }
        record(sample);
    }

    /** Starts checking every {@link Settings#every()} on a daemon thread; returns at once. */
    public synchronized void start() {
        if (thread != null || closing.getCount() == 0) {
            throw new IllegalStateException("the database watch was already started or closed");
        }
        thread = Thread.ofPlatform().daemon().name("buzz-database-watch").start(() -> {
            while (!awaitClosing(settings.every())) {
                try {
                    check();
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "database check failed unexpectedly", e);
                }
            }
        });
    }

    /** Stops the timer thread (a read in flight finishes on its own). Idempotent. */
    @Override
    public void close() {
        closing.countDown();
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
    public DatabaseStatus databaseStatus() {
        Instant now = clock.now();
        synchronized (lock) {
            Health known = failure.isEmpty() ? Health.UP : Health.DOWN;
            if (readStartedAt != null) {
                Duration waiting = Duration.between(readStartedAt, now);
                if (waiting.compareTo(settings.answerWithin()) > 0) {
                    return new DatabaseStatus(known == Health.DOWN ? Health.DOWN : Health.SLOW,
                            Optional.of("the database has not answered for " + waiting.toMillis() + " ms"
                                    + failure.map(reason -> " (before that: " + reason + ")").orElse("")),
                            known == Health.DOWN ? stateSince : readStartedAt, skew);
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
            return new DatabaseStatus(known, failure, stateSince, skew);
        }
    }

    private Sample read() {
        Instant before = clock.now();
        synchronized (lock) {
            readStartedAt = before;
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
            switch (sample.reading()) {
                case Reading.Answered answered -> {
                    if (firstCheck || failure.isPresent()) {
                        if (!firstCheck) {
                            message = "the database answers again after "
                                    + Duration.between(stateSince, sample.after()).toMillis() + " ms unreachable";
                        }
                        failure = Optional.empty();
                        stateSince = sample.after();
                    }
                    lastAnswerAt = sample.after();
                    if (sample.roundTrip().compareTo(settings.maxSkewRoundTrip()) <= 0) {
                        Instant midpoint = sample.before().plus(sample.roundTrip().dividedBy(2));
                        Duration measured = Duration.between(answered.databaseNow(), midpoint);
                        skew = Optional.of(measured);
                        boolean beyond = measured.abs().compareTo(settings.skewWarning()) > 0;
                        if (beyond && !skewWarned) {
                            skewLevel = Level.WARNING;
                            skewMessage = "this host's clock is " + describe(measured) + " the database's (measured"
                                    + " over a " + sample.roundTrip().toMillis() + " ms round trip); due times follow the"
                                    + " database's clock, but NIP-98 request signatures (60 s window) and NIP-42 AUTH"
                                    + " are checked against this host's clock: fix its time synchronisation";
                        } else if (!beyond && skewWarned) {
                            skewMessage = "this host's clock is within " + settings.skewWarning().toSeconds()
                                    + " s of the database's again (" + describe(measured) + ")";
                        }
                        skewWarned = beyond;
                    }
                }
                case Reading.Failed failed -> {
                    if (firstCheck || failure.isEmpty()) {
                        stateSince = sample.before();
                        level = Level.WARNING;
                        message = "the database does not answer (" + failed.reason() + "); readiness fails and owner"
                                + " requests answer 503 until it does";
                    }
                    failure = Optional.of(failed.reason());
                }
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

    private boolean awaitClosing(Duration wait) {
        try {
            return closing.await(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /** One read, bracketed by this host's clock. */
    private record Sample(Instant before, Instant after, Reading reading) {
        Duration roundTrip() {
            return Duration.between(before, after);
        }
    }
}

package buzz.scheduled.adapters.postgres;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a {@link PostgresDueWorkSignal}'s listener stands and how each event moves it, with the log lines each move
 * writes (docs/failure-scenarios.md F33): a dropped session that the immediate reconnect replaces is no outage; an
 * outage is logged once at WARN when it begins and once at INFO when the listener has been listening steadily again.
 * The listener thread alone calls the moves; the lines go to the signal's own logger.
 */
final class ListenerStandings {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresDueWorkSignal.class);

    private final Duration steadyAfter;
    private final Duration maxRetry;
    private final Runnable wakeUp;
    private final AtomicLong outages = new AtomicLong();

    /**
     * Standings for a listener with these settings.
     *
     * @param wakeUp wakes the waiting dispatcher as an outage begins, so it re-plans its sleep
     */
    ListenerStandings(PostgresDueWorkSignal.ListenSettings settings, Runnable wakeUp) {
        this.steadyAfter = settings.steadyAfter();
        this.maxRetry = settings.maxRetry();
        this.wakeUp = wakeUp;
    }

    /** Outages so far (each logged once at WARN). */
    long outages() {
        return outages.get();
    }

    /**
     * Where the listener stands, which decides its log lines (never its reconnect attempts, which are the same in
     * every standing but the first after a quiet drop).
     */
    sealed interface Standing {
        /** Listening (or never connected yet) with no outage open; {@code lastDropNanos} is 0 if never dropped. */
        record Steady(long lastDropNanos) implements Standing {
        }

        /** The session just dropped; the immediate reconnect has not answered yet. Nothing logged above DEBUG. */
        record Repairing(long droppedAtNanos, String reason) implements Standing {
        }

        /**
         * An outage, logged once at WARN: not listening, or listening for less than {@code steadyAfter} since
         * {@code listeningSinceNanos} (0 while not listening).
         */
        record Outage(long sinceNanos, int drops, int failedAttempts, long listeningSinceNanos) implements Standing {
        }
    }

    /** The standing once {@code LISTEN} works (again). */
    Standing listeningAgain(Standing standing, boolean everListened) {
        long now = System.nanoTime();
        return switch (standing) {
            case Standing.Steady steady -> {
                if (!everListened) {
                    LOG.info("listening on {} for due work", PostgresDueWorkSignal.CHANNEL);
                }
                yield steady;
            }
            case Standing.Repairing repairing -> {
                LOG.debug("the listener's session was replaced {} ms after it dropped ({})",
                        (now - repairing.droppedAtNanos()) / 1_000_000, repairing.reason());
                yield new Standing.Steady(repairing.droppedAtNanos());
            }
            case Standing.Outage outage -> new Standing.Outage(outage.sinceNanos(), outage.drops(),
                    outage.failedAttempts(), now);
        };
    }

    /** The standing after a session that was listening dropped, for {@code reason}. */
    Standing dropped(Standing standing, String reason) {
        long now = System.nanoTime();
        return switch (standing) {
            case Standing.Steady steady when steady.lastDropNanos() != 0
                    && now - steady.lastDropNanos() < steadyAfter.toNanos() -> {
                beginOutage("keeps dropping: twice within " + steadyAfter.toSeconds() + " s, last time "
                        + reason);
                yield new Standing.Outage(steady.lastDropNanos(), 2, 0, 0);
            }
            case Standing.Steady steady -> {
                LOG.debug("the listener's session dropped ({}); replacing it at once", reason);
                yield new Standing.Repairing(now, reason);
            }
            case Standing.Repairing repairing -> throw new IllegalStateException("a repairing listener never listened");
            case Standing.Outage outage -> {
                LOG.debug("due-work listener dropped again ({})", reason);
                yield new Standing.Outage(outage.sinceNanos(), outage.drops() + 1, outage.failedAttempts(), 0);
            }
        };
    }

    /** The standing after an attempt to connect, {@code LISTEN} and hear the test notification failed. */
    Standing failedAttempt(Standing standing, String reason) {
        return switch (standing) {
            case Standing.Steady steady -> {
                beginOutage(reason);
                yield new Standing.Outage(System.nanoTime(), 0, 1, 0);
            }
            case Standing.Repairing repairing -> {
                beginOutage(repairing.reason() + "; reconnecting failed: " + reason);
                yield new Standing.Outage(repairing.droppedAtNanos(), 1, 1, 0);
            }
            case Standing.Outage outage -> {
                LOG.debug("due-work listener still down ({})", reason);
                yield new Standing.Outage(outage.sinceNanos(), outage.drops(), outage.failedAttempts() + 1, 0);
            }
        };
    }

    /** Counts and logs an outage beginning, and wakes the dispatcher so it re-plans its sleep. */
    private void beginOutage(String reason) {
        outages.incrementAndGet();
        LOG.warn("due-work listener is down ({}); reconnecting with backoff up to {} s. Meanwhile this process still"
                + " wakes at once for its own changes; other nodes' changes wait for the dispatcher's poll", reason,
                maxRetry.toSeconds());
        // A sleeping dispatcher re-plans its sleep: while nothing is heard it polls fast.
        wakeUp.run();
    }

    /** Ends an outage whose listener has been listening for {@code steadyAfter}; any other standing as it is. */
    Standing steadiness(Standing standing) {
        if (standing instanceof Standing.Outage outage && outage.listeningSinceNanos() != 0
                && System.nanoTime() - outage.listeningSinceNanos() >= steadyAfter.toNanos()) {
            LOG.info("listening on {} for due work again, steadily for {} s, after an outage of {} ms with {} drop(s)"
                            + " and {} failed attempt(s)", PostgresDueWorkSignal.CHANNEL, steadyAfter.toSeconds(),
                    (outage.listeningSinceNanos() - outage.sinceNanos()) / 1_000_000, outage.drops(),
                    outage.failedAttempts());
            return new Standing.Steady(0);
        }
        return standing;
    }
}

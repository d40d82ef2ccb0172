package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.support.InProcessDueWorkSignal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the dispatcher when PostgreSQL says work may be due sooner (docs/delivery.md "Time"): a
 * dedicated connection, outside the pool, runs {@code LISTEN buzz_scheduled_due}; migration V2's triggers
 * {@code NOTIFY} that channel at commit whenever rows enter {@code scheduled} or a scheduled row's due or
 * retry time moves, with the nearest "not before" time as Unix epoch milliseconds in the payload.
 *
 * <p>A listener thread waits on {@link PGConnection#getNotifications(int)}, which reads the socket without
 * sending anything, and checks the connection with a round trip only every {@code livenessEvery}. The session turns
 * {@code idle_session_timeout} off for itself (PostgreSQL 14+; docs/failure-scenarios.md F30): listening is waiting,
 * and a server that ends idle sessions would otherwise end this one every few seconds. When the connection is lost
 * it reconnects with exponential backoff; meanwhile {@link #listening()} is false (the waiting dispatcher is woken
 * once as an outage begins, so it can shorten its poll), and only this process's own changes ({@link #dueAt}) and
 * the dispatcher's polling wake it. After every (re)connect it reports a notification without a time, because any
 * notification sent while it was not listening is gone.
 *
 * <p>A {@code LISTEN} that succeeds is not yet proof of hearing anything: through a transaction-mode pooler
 * (PgBouncer) the session that ran it goes back to the pool at once and its notifications never reach this
 * connection. So after each {@code LISTEN} the listener sends a test notification over a second connection and
 * counts as listening only once it hears it back within {@link ListenSettings#selfCheckWithin()}; other nodes
 * ignore these test payloads.
 *
 * <p>Log lines follow its {@link ListenerStandings.Standing}, not its attempts (docs/failure-scenarios.md F33): a
 * dropped session that the first, immediate reconnect replaces is no outage and logs nothing above DEBUG; an outage
 * (a reconnect that fails, or a session that drops again within {@link ListenSettings#steadyAfter()} of the last
 * one) is logged once at WARN when it begins and once at INFO when the listener has been listening for
 * {@code steadyAfter} again, with how long it lasted and how many drops and failed attempts it held.
 */
public final class PostgresDueWorkSignal implements DueWorkSignal, DueWorkNotice {
    /** The channel migration V2 notifies. */
    public static final String CHANNEL = "buzz_scheduled_due";
    /** What the listener's session is called in {@code pg_stat_activity}. */
    public static final String APPLICATION_NAME = "buzz-due-listener";
    /** How the payload of a listener's test notification starts; every listener ignores such payloads. */
    static final String SELF_CHECK_PREFIX = "listen-check:";

    private static final Logger LOG = LoggerFactory.getLogger(PostgresDueWorkSignal.class);

    /** Opens a new, unpooled connection for the listener. */
    @FunctionalInterface
    public interface Connector {
        /** A fresh connection; the listener owns and closes it. */
        Connection open() throws SQLException;
    }

    /**
     * Timing of the listener.
     *
     * @param firstRetry      wait before the first reconnect attempt of an outage
     * @param maxRetry        longest wait between reconnect attempts (the backoff doubles up to it)
     * @param livenessEvery   how often an idle listening connection is checked with a round trip
     * @param selfCheckWithin how long after {@code LISTEN} its own test notification must arrive
     * @param steadyAfter     how long the listener must have been listening for an outage to be over, and within
     *                        which a second drop makes a first, quietly repaired one part of an outage
     */
    public record ListenSettings(Duration firstRetry, Duration maxRetry, Duration livenessEvery,
                                 Duration selfCheckWithin, Duration steadyAfter) {
        /**
         * 250 ms doubling to 30 s between reconnects; a liveness check every 30 s; the test notification within 3 s;
         * steady after 10 s.
         */
        public static final ListenSettings DEFAULT = new ListenSettings(Duration.ofMillis(250), Duration.ofSeconds(30),
                Duration.ofSeconds(30), Duration.ofSeconds(3), Duration.ofSeconds(10));

        public ListenSettings {
            if (firstRetry == null || maxRetry == null || livenessEvery == null || selfCheckWithin == null
                    || steadyAfter == null || !firstRetry.isPositive() || maxRetry.compareTo(firstRetry) < 0
                    || livenessEvery.toMillis() < 1 || selfCheckWithin.toMillis() < 1 || steadyAfter.toMillis() < 1) {
                throw new IllegalArgumentException("listen settings need 0 < firstRetry <= maxRetry and liveness,"
                        + " self-check and steadiness periods of at least 1 ms, got " + firstRetry + ", " + maxRetry
                        + ", " + livenessEvery + ", " + selfCheckWithin + ", " + steadyAfter);
            }
        }

        /** Settings steady after the default 10 s. */
        public ListenSettings(Duration firstRetry, Duration maxRetry, Duration livenessEvery,
                              Duration selfCheckWithin) {
            this(firstRetry, maxRetry, livenessEvery, selfCheckWithin, Duration.ofSeconds(10));
        }

        /** Settings with the default self-check wait of 3 s, steady after 10 s. */
        public ListenSettings(Duration firstRetry, Duration maxRetry, Duration livenessEvery) {
            this(firstRetry, maxRetry, livenessEvery, Duration.ofSeconds(3));
        }
    }

    /**
     * Added to a dispatcher's longest sleep in the horizon it records: covers the time between a row's trigger and its
     * commit, and a wake-up that comes a little late.
     */
    public static final Duration HORIZON_MARGIN = Duration.ofSeconds(30);

    private final Connector connector;
    private final ListenSettings settings;
    /** The horizon this listener records (its dispatcher's longest sleep plus the margin), or empty for none. */
    private final Optional<Duration> horizon;
    private final InProcessDueWorkSignal handOff = new InProcessDueWorkSignal();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final ListenerStandings standings;
    private volatile Connection current;
    private volatile ListenerStandings.Standing standing = new ListenerStandings.Standing.Steady(0);
    private volatile boolean listening;
    private volatile Thread listener;

    /**
     * A signal that will listen through connections from {@code connector}; call {@link #start()}.
     */
    public PostgresDueWorkSignal(Connector connector, ListenSettings settings) {
        this(connector, settings, Optional.empty());
    }

    /**
     * A signal for a dispatcher that never sleeps longer than {@code longestSleep} (its backstop poll) without a
     * notification; call {@link #start()}. On every (re)connect, before it counts as listening, it records in
     * {@code due_notice_horizon} (migration V15) that rows claimable later than {@code longestSleep} plus
     * {@link #HORIZON_MARGIN} from their write need no notification: the dispatcher's poll finds them in time. The
     * table keeps the greatest horizon any node recorded, so a node with a longer poll is never missed.
     *
     * @throws IllegalArgumentException when a value is missing or {@code longestSleep} is not positive
     */
    public PostgresDueWorkSignal(Connector connector, ListenSettings settings, Duration longestSleep) {
        this(connector, settings, Optional.of(requirePositive(longestSleep).plus(HORIZON_MARGIN)));
    }

    private PostgresDueWorkSignal(Connector connector, ListenSettings settings, Optional<Duration> horizon) {
        if (connector == null || settings == null) {
            throw new IllegalArgumentException("a due-work listener needs a connector and settings");
        }
        this.connector = connector;
        this.settings = settings;
        this.horizon = horizon;
        this.standings = new ListenerStandings(settings, handOff::wakeUp);
    }

    private static Duration requirePositive(Duration longestSleep) {
        if (longestSleep == null || !longestSleep.isPositive()) {
            throw new IllegalArgumentException("a dispatcher's longest sleep must be positive, got " + longestSleep);
        }
        return longestSleep;
    }

    /** Listens on the database at {@code url} with {@link ListenSettings#DEFAULT}, started. */
    public static PostgresDueWorkSignal listen(DatabaseUrl url) {
        PostgresDueWorkSignal signal = new PostgresDueWorkSignal(connectorFor(url), ListenSettings.DEFAULT);
        signal.start();
        return signal;
    }

    /**
     * Opens dedicated connections to {@code url} (never from the pool: LISTEN belongs to one session). Give it a
     * direct URL, not one through a transaction-mode pooler ({@code BUZZ_DIRECT_DATABASE_URL}).
     */
    public static Connector connectorFor(DatabaseUrl url) {
        Properties properties = new Properties();
        properties.setProperty("tcpKeepAlive", "true");
        properties.setProperty("connectTimeout", "10");
        return dedicated(url, APPLICATION_NAME, properties);
    }

    /** Opens connections to {@code url} named {@code applicationName}, with extra driver {@code properties}. */
    static Connector dedicated(DatabaseUrl url, String applicationName, Properties properties) {
        Properties copy = new Properties();
        copy.putAll(properties);
        return () -> {
            Properties connection = new Properties();
            connection.putAll(copy);
            url.user().ifPresent(user -> connection.setProperty("user", user));
            url.password().ifPresent(password -> connection.setProperty("password", password));
            connection.setProperty("ApplicationName", applicationName);
            return DriverManager.getConnection(url.jdbcUrl(), connection);
        };
    }

    /**
     * Starts the listener thread; returns at once (the first connection is made in the background).
     *
     * @throws IllegalStateException when started before or closed
     */
    public synchronized void start() {
        if (listener != null || closing.getCount() == 0) {
            throw new IllegalStateException("the due-work listener was already started or closed");
        }
        listener = Thread.ofPlatform().name(APPLICATION_NAME).daemon().start(this::listenUntilClosed);
    }

    @Override
    public Wake awaitWork(Duration max) {
        return handOff.awaitWork(max);
    }

    @Override
    public void wakeUp() {
        handOff.wakeUp();
    }

    /** Whether {@code LISTEN} is in effect right now and heard its own test notification. */
    @Override
    public boolean listening() {
        return listening;
    }

    /** This process's own change: hands {@code dueAt} to the waiting dispatcher at once, listening or not. */
    @Override
    public void dueAt(Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("a due time is needed");
        }
        handOff.notifyDue(Optional.of(dueAt));
    }

    /** Successful (re)connections so far. */
    public long connects() {
        return connects.get();
    }

    /** Failed connection attempts and lost connections so far. */
    public long failures() {
        return failures.get();
    }

    /** Outages so far (each logged once at WARN); a drop the immediate reconnect repaired is none. */
    public long outages() {
        return standings.outages();
    }

    /** Where the listener stands now (for tests). */
    ListenerStandings.Standing standing() {
        return standing;
    }

    @Override
    public void close() {
        closing.countDown();
        handOff.close();
        Connection connection = current;
        if (connection != null) {
            abort(connection);
        }
        Thread thread = listener;
        if (thread != null && thread != Thread.currentThread()) {
            try {
                thread.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean closed() {
        return closing.getCount() == 0;
    }

    private void listenUntilClosed() {
        Duration backoff = settings.firstRetry();
        boolean everListened = false;
        while (!closed()) {
            Connection connection = null;
            boolean listened = false;
            String reason = null;
            try {
                connection = connector.open();
                current = connection;
                if (closed()) {
                    break;
                }
                connection.setAutoCommit(true);
                try (Statement statement = connection.createStatement()) {
                    statement.execute(PostgresDataSources.IDLE_SESSION_TIMEOUT_OFF);
                    recordHorizon(statement);
                    statement.execute("LISTEN " + CHANNEL);
                }
                PGConnection pg = connection.unwrap(PGConnection.class);
                selfCheck(pg);
                listening = true;
                listened = true;
                connects.incrementAndGet();
                backoff = settings.firstRetry();
                standing = standings.listeningAgain(standing, everListened);
                everListened = true;
                handOff.notifyDue(Optional.empty());
                receive(connection, pg);
            } catch (SQLException | RuntimeException e) {
                if (closed()) {
                    break;
                }
                failures.incrementAndGet();
                reason = e.getMessage();
            } finally {
                listening = false;
                current = null;
                if (connection != null) {
                    closeQuietly(connection);
                }
            }
            if (closed()) {
                break;
            }
            standing = listened ? standings.dropped(standing, reason) : standings.failedAttempt(standing, reason);
            if (standing instanceof ListenerStandings.Standing.Repairing) {
                continue; // a session that just dropped is replaced at once
            }
            if (awaitClosing(backoff)) {
                break;
            }
            backoff = backoff.multipliedBy(2).compareTo(settings.maxRetry()) > 0
                    ? settings.maxRetry() : backoff.multipliedBy(2);
        }
        LOG.info("due-work listener stopped");
    }

    /**
     * Records this listener's horizon unless a node recorded a longer one (migration V15), before its {@code LISTEN}:
     * from then on the dispatcher wakes for every row claimable within it, and its poll finds the rest.
     */
    private void recordHorizon(Statement statement) throws SQLException {
        if (horizon.isEmpty()) {
            return;
        }
        long seconds = Math.min(Integer.MAX_VALUE, (horizon.get().toMillis() + 999) / 1_000);
        statement.execute("INSERT INTO due_notice_horizon (seconds) VALUES (" + seconds + ")"
                + " ON CONFLICT (only_row) DO UPDATE SET seconds = excluded.seconds, updated_at = now()"
                + " WHERE due_notice_horizon.seconds < excluded.seconds");
    }

    /**
     * Sends a test notification over a second connection and waits until this one hears it; notifications that
     * arrive meanwhile are handed over as usual.
     *
     * @throws SQLException when the test notification cannot be sent or does not arrive in time (a transaction-mode
     *                      pooler in between, most likely)
     */
    private void selfCheck(PGConnection pg) throws SQLException {
        String payload = SELF_CHECK_PREFIX + UUID.randomUUID();
        try (Connection sender = connector.open(); Statement statement = sender.createStatement()) {
            sender.setAutoCommit(true);
            statement.execute("SELECT pg_notify('" + CHANNEL + "', '" + payload + "')");
        }
        long deadline = System.nanoTime() + settings.selfCheckWithin().toNanos();
        while (!closed()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new SQLException("LISTEN " + CHANNEL + " did not hear its own test notification within "
                        + settings.selfCheckWithin().toMillis() + " ms; is this URL behind a transaction-mode pooler"
                        + " such as PgBouncer? Point BUZZ_DIRECT_DATABASE_URL at the database itself");
            }
            PGNotification[] notifications = pg.getNotifications((int) Math.max(1, left / 1_000_000));
            boolean heard = false;
            for (PGNotification notification : notifications == null ? new PGNotification[0] : notifications) {
                if (!CHANNEL.equals(notification.getName())) {
                    continue;
                }
                if (payload.equals(notification.getParameter())) {
                    heard = true;
                } else if (!isSelfCheck(notification.getParameter())) {
                    handOff.notifyDue(parse(notification.getParameter()));
                }
            }
            if (heard) {
                return;
            }
        }
    }

    /**
     * Hands notifications over until the connection fails or the signal is closed, ending an outage once it has been
     * listening steadily (see {@link ListenerStandings#steadiness}).
     *
     * @throws SQLException when the connection fails
     */
    private void receive(Connection connection, PGConnection pg) throws SQLException {
        long livenessNanos = settings.livenessEvery().toNanos();
        long nextLiveness = System.nanoTime() + livenessNanos;
        while (!closed()) {
            standing = standings.steadiness(standing);
            long wait = nextLiveness - System.nanoTime();
            if (standing instanceof ListenerStandings.Standing.Outage outage) {
                wait = Math.min(wait, outage.listeningSinceNanos() + settings.steadyAfter().toNanos()
                        - System.nanoTime());
            }
            PGNotification[] notifications = pg.getNotifications((int) Math.max(1, Math.min(Integer.MAX_VALUE,
                    wait / 1_000_000)));
            if (notifications != null && notifications.length > 0) {
                for (PGNotification notification : notifications) {
                    if (CHANNEL.equals(notification.getName()) && !isSelfCheck(notification.getParameter())) {
                        handOff.notifyDue(parse(notification.getParameter()));
                    }
                }
            }
            if (!closed() && System.nanoTime() - nextLiveness >= 0) {
                if (!connection.isValid(5)) {
                    throw new SQLException("the listening connection stopped answering");
                }
                nextLiveness = System.nanoTime() + livenessNanos;
            }
        }
    }

    /** Whether {@code payload} is some listener's test notification (this one's or another node's). */
    static boolean isSelfCheck(String payload) {
        return payload != null && payload.startsWith(SELF_CHECK_PREFIX);
    }

    /** The payload is the nearest not-before time in Unix epoch milliseconds; anything else means "recompute". */
    static Optional<Instant> parse(String payload) {
        if (payload == null || payload.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.ofEpochMilli(Long.parseLong(payload.strip())));
        } catch (NumberFormatException | java.time.DateTimeException e) {
            LOG.warn("unreadable {} payload {}; recomputing", CHANNEL, payload);
            return Optional.empty();
        }
    }

    private boolean awaitClosing(Duration wait) {
        try {
            return closing.await(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private static void abort(Connection connection) {
        try {
            // abort closes the socket without waiting for the lock the blocked getNotifications holds.
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(connection);
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("closing the listener connection failed", e);
        }
    }
}

package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.port.out.InProcessDueWorkSignal;
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
 * sending anything, and checks the connection with a round trip only every {@code livenessEvery}. When the
 * connection is lost it reconnects with exponential backoff; meanwhile {@link #listening()} is false (the waiting
 * dispatcher is woken once as it turns false, so it can shorten its poll), and only this process's own changes
 * ({@link #dueAt}) and the dispatcher's polling wake it. After every (re)connect it reports a
 * notification without a time, because any notification sent while it was not listening is gone.
 *
 * <p>A {@code LISTEN} that succeeds is not yet proof of hearing anything: through a transaction-mode pooler
 * (PgBouncer) the session that ran it goes back to the pool at once and its notifications never reach this
 * connection. So after each {@code LISTEN} the listener sends a test notification over a second connection and
 * counts as listening only once it hears it back within {@link ListenSettings#selfCheckWithin()}; other nodes
 * ignore these test payloads. The state is logged once per change (down with the reason, up again with how long
 * it was down), not once per attempt.
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
     * @param firstRetry      wait before the first reconnect attempt
     * @param maxRetry        longest wait between reconnect attempts (the backoff doubles up to it)
     * @param livenessEvery   how often an idle listening connection is checked with a round trip
     * @param selfCheckWithin how long after {@code LISTEN} its own test notification must arrive
     */
    public record ListenSettings(Duration firstRetry, Duration maxRetry, Duration livenessEvery,
                                 Duration selfCheckWithin) {
        /** 250 ms doubling to 30 s between reconnects; a liveness check every 30 s; the test notification within 3 s. */
        public static final ListenSettings DEFAULT = new ListenSettings(Duration.ofMillis(250), Duration.ofSeconds(30),
                Duration.ofSeconds(30), Duration.ofSeconds(3));

        public ListenSettings {
            if (firstRetry == null || maxRetry == null || livenessEvery == null || selfCheckWithin == null
                    || !firstRetry.isPositive() || maxRetry.compareTo(firstRetry) < 0 || livenessEvery.toMillis() < 1
                    || selfCheckWithin.toMillis() < 1) {
                throw new IllegalArgumentException("listen settings need 0 < firstRetry <= maxRetry and liveness and"
                        + " self-check periods of at least 1 ms, got " + firstRetry + ", " + maxRetry + ", "
                        + livenessEvery + ", " + selfCheckWithin);
            }
        }

        /** Settings with the default self-check wait of 3 s. */
        public ListenSettings(Duration firstRetry, Duration maxRetry, Duration livenessEvery) {
            this(firstRetry, maxRetry, livenessEvery, Duration.ofSeconds(3));
        }
    }

    private final Connector connector;
    private final ListenSettings settings;
    private final InProcessDueWorkSignal handOff = new InProcessDueWorkSignal();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile Connection current;
    private volatile boolean listening;
    private volatile Thread listener;

    /**
     * A signal that will listen through connections from {@code connector}; call {@link #start()}.
     */
    public PostgresDueWorkSignal(Connector connector, ListenSettings settings) {
        if (connector == null || settings == null) {
            throw new IllegalArgumentException("a due-work listener needs a connector and settings");
        }
        this.connector = connector;
        this.settings = settings;
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
        long downSinceNanos = 0;
        boolean down = false;
        int failedAttempts = 0;
        boolean everListened = false;
        while (!closed()) {
            Connection connection = null;
            try {
                connection = connector.open();
                current = connection;
                if (closed()) {
                    break;
                }
                connection.setAutoCommit(true);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + CHANNEL);
                }
                PGConnection pg = connection.unwrap(PGConnection.class);
                selfCheck(pg);
                listening = true;
                connects.incrementAndGet();
                backoff = settings.firstRetry();
                if (down) {
                    LOG.info("listening on {} for due work again, after {} failed attempt(s) over {} ms", CHANNEL,
                            failedAttempts, (System.nanoTime() - downSinceNanos) / 1_000_000);
                } else if (!everListened) {
                    LOG.info("listening on {} for due work", CHANNEL);
                }
                everListened = true;
                down = false;
                failedAttempts = 0;
                handOff.notifyDue(Optional.empty());
                receive(connection, pg);
            } catch (SQLException | RuntimeException e) {
                if (closed()) {
                    break;
                }
                failures.incrementAndGet();
                failedAttempts++;
                if (!down) {
                    down = true;
                    downSinceNanos = System.nanoTime();
                    LOG.warn("due-work listener is down ({}); reconnecting with backoff up to {} s. Meanwhile this"
                                    + " process still wakes at once for its own changes; other nodes' changes wait for"
                                    + " the dispatcher's poll", e.getMessage(), settings.maxRetry().toSeconds());
                    // A sleeping dispatcher re-plans its sleep: while nothing is heard it polls fast.
                    listening = false;
                    handOff.wakeUp();
                } else {
                    LOG.debug("due-work listener still down ({}); next attempt in {} ms", e.getMessage(),
                            backoff.toMillis());
                }
            } finally {
                listening = false;
                current = null;
                if (connection != null) {
                    closeQuietly(connection);
                }
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

    /** Hands notifications over until the connection fails or the signal is closed. */
    private void receive(Connection connection, PGConnection pg) throws SQLException {
        int waitMillis = (int) Math.min(Integer.MAX_VALUE, settings.livenessEvery().toMillis());
        while (!closed()) {
            PGNotification[] notifications = pg.getNotifications(waitMillis);
            if (notifications != null && notifications.length > 0) {
                for (PGNotification notification : notifications) {
                    if (CHANNEL.equals(notification.getName()) && !isSelfCheck(notification.getParameter())) {
                        handOff.notifyDue(parse(notification.getParameter()));
                    }
                }
            } else if (!closed() && !connection.isValid(5)) {
                throw new SQLException("the listening connection stopped answering");
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

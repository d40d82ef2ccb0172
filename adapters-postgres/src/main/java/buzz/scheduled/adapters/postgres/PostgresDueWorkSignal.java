package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.service.InProcessDueWorkSignal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the dispatcher when PostgreSQL says work may be due sooner (SPEC §3.6, DELIVERY.md "Time"): a
 * dedicated connection, outside the pool, runs {@code LISTEN buzz_scheduled_due}; migration V2's triggers
 * {@code NOTIFY} that channel at commit whenever rows enter {@code scheduled} or a scheduled row's due or
 * retry time moves, with the nearest "not before" time as Unix epoch milliseconds in the payload.
 *
 * <p>A listener thread waits on {@link PGConnection#getNotifications(int)}, which reads the socket without
 * sending anything, and checks the connection with a round trip only every {@code livenessEvery}. When the
 * connection is lost it reconnects with exponential backoff; meanwhile the dispatcher's own backstop poll is
 * all that wakes it. After every (re)connect it reports a notification without a time, because any
 * notification sent while it was not listening is gone.
 */
public final class PostgresDueWorkSignal implements DueWorkSignal {
    /** The channel migration V2 notifies. */
    public static final String CHANNEL = "buzz_scheduled_due";
    /** What the listener's session is called in {@code pg_stat_activity}. */
    public static final String APPLICATION_NAME = "buzz-due-listener";

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
     * @param firstRetry    wait before the first reconnect attempt
     * @param maxRetry      longest wait between reconnect attempts (the backoff doubles up to it)
     * @param livenessEvery how often an idle listening connection is checked with a round trip
     */
    public record ListenSettings(Duration firstRetry, Duration maxRetry, Duration livenessEvery) {
        /** 250 ms doubling to 30 s between reconnects; a liveness check every 30 s. */
        public static final ListenSettings DEFAULT =
                new ListenSettings(Duration.ofMillis(250), Duration.ofSeconds(30), Duration.ofSeconds(30));

        public ListenSettings {
            if (firstRetry == null || maxRetry == null || livenessEvery == null || !firstRetry.isPositive()
                    || maxRetry.compareTo(firstRetry) < 0 || livenessEvery.toMillis() < 1) {
                throw new IllegalArgumentException("listen settings need 0 < firstRetry <= maxRetry and a liveness"
                        + " period of at least 1 ms, got " + firstRetry + ", " + maxRetry + ", " + livenessEvery);
            }
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

    /** Opens dedicated connections to {@code url} (never from the pool: LISTEN belongs to one session). */
    public static Connector connectorFor(DatabaseUrl url) {
        return () -> {
            Properties properties = new Properties();
            url.user().ifPresent(user -> properties.setProperty("user", user));
            url.password().ifPresent(password -> properties.setProperty("password", password));
            properties.setProperty("ApplicationName", APPLICATION_NAME);
            properties.setProperty("tcpKeepAlive", "true");
            return DriverManager.getConnection(url.jdbcUrl(), properties);
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

    /** Whether {@code LISTEN} is in effect right now (for readiness and metrics). */
    public boolean listening() {
        return listening;
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
                listening = true;
                connects.incrementAndGet();
                backoff = settings.firstRetry();
                LOG.info("listening on {} for due work", CHANNEL);
                handOff.notifyDue(Optional.empty());
                receive(connection, pg);
            } catch (SQLException | RuntimeException e) {
                if (closed()) {
                    break;
                }
                failures.incrementAndGet();
                LOG.warn("due-work listener lost its connection ({}); retrying in {} ms, the backstop poll covers"
                        + " the gap", e.getMessage(), backoff.toMillis());
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

    /** Hands notifications over until the connection fails or the signal is closed. */
    private void receive(Connection connection, PGConnection pg) throws SQLException {
        int waitMillis = (int) Math.min(Integer.MAX_VALUE, settings.livenessEvery().toMillis());
        while (!closed()) {
            PGNotification[] notifications = pg.getNotifications(waitMillis);
            if (notifications != null && notifications.length > 0) {
                for (PGNotification notification : notifications) {
                    if (CHANNEL.equals(notification.getName())) {
                        handOff.notifyDue(parse(notification.getParameter()));
                    }
                }
            } else if (!closed() && !connection.isValid(5)) {
                throw new SQLException("the listening connection stopped answering");
            }
        }
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

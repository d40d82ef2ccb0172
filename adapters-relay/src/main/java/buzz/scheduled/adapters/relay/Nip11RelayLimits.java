package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.RelayLimits;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RelayLimits} from the relay's NIP-11 information document ({@link RelayInformation}): read once when
 * {@link #start()} is called (waiting at most the relay settings' connect timeout), then again every
 * {@code refreshEvery}, and every 30 s (or {@code refreshEvery} when shorter) while it has never been read. A
 * document that cannot be read keeps the last known limitation; until the first read nothing is known
 * ({@link Limitation#NONE}). Logs the limitation when it is first read and whenever it changes, and a failing or
 * recovered read once per change, not on every attempt. Thread-safe.
 */
public final class Nip11RelayLimits implements RelayLimits, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Nip11RelayLimits.class);
    /** Refresh interval when none is configured. */
    public static final Duration DEFAULT_REFRESH = Duration.ofMinutes(5);
    private static final Duration RETRY_UNTIL_READ = Duration.ofSeconds(30);

    private final RelaySettings relay;
    private final Duration refreshEvery;
    private final HttpClient http;
    private final ScheduledExecutorService timer;

    private final Object lock = new Object();
    // guarded by lock
    private Limitation current = Limitation.NONE;
    private boolean read;
    private String failing;
    private boolean closed;

    /**
     * @param relay        the relay's URL and the timeout for one read (its connect timeout)
     * @param refreshEvery how often the document is read again, positive
     */
    public Nip11RelayLimits(RelaySettings relay, Duration refreshEvery) {
        if (relay == null || refreshEvery == null || refreshEvery.isNegative() || refreshEvery.isZero()) {
            throw new IllegalArgumentException("NIP-11 relay limits need relay settings and a positive refresh, got "
                    + refreshEvery);
        }
        this.relay = relay;
        this.refreshEvery = refreshEvery;
        this.http = RelayResources.http11(relay.connectTimeout());
        this.timer = Executors.newSingleThreadScheduledExecutor(RelayResources.daemonThreads("relay-nip11-refresh"));
    }

    /** Reads the document now (at most the connect timeout), then keeps refreshing it in the background. */
    public void start() {
        refresh();
        scheduleNext();
    }

    @Override
    public Limitation current() {
        synchronized (lock) {
            return current;
        }
    }

    /** Reads the document once now; returns the limitation known afterwards (the last known on failure). */
    public Limitation refresh() {
        URI url = RelayInformation.documentUrl(relay.url());
        RelayInformation.Answer answer = RelayInformation.fetch(http, relay.url(), relay.connectTimeout());
        synchronized (lock) {
            switch (answer) {
                case RelayInformation.Answer.Read found -> {
                    Limitation next = found.information().limitation();
                    if (failing != null) {
                        LOG.info("the relay's NIP-11 document at {} can be read again", url);
                        failing = null;
                    }
                    if (!read || !next.equals(current)) {
                        LOG.info("relay limits from the NIP-11 document at {}: {}", url, describe(next));
                    }
                    read = true;
                    current = next;
                }
                case RelayInformation.Answer.Unreadable unreadable -> {
                    if (failing == null) {
                        LOG.warn("{}; admission {} until it can be read (retrying every {} s)", unreadable.why(),
                                read ? "keeps the last known relay limits (" + describe(current) + ")"
                                        : "knows no relay limits", nextDelay().toSeconds());
                    } else {
                        LOG.debug("{} (still)", unreadable.why());
                    }
                    failing = unreadable.why();
                }
            }
            return current;
        }
    }

    /** Stops refreshing; {@link #current()} keeps answering the last known limitation. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
        }
        timer.shutdownNow();
        http.close();
    }

    private Duration nextDelay() {
        synchronized (lock) {
            return read || refreshEvery.compareTo(RETRY_UNTIL_READ) < 0 ? refreshEvery : RETRY_UNTIL_READ;
        }
    }

    private void scheduleNext() {
        synchronized (lock) {
            if (closed) {
                return;
            }
        }
        try {
            timer.schedule(() -> {
                try {
                    refresh();
                } catch (RuntimeException e) {
                    LOG.warn("reading the relay's NIP-11 document failed unexpectedly: {}", e.toString());
                }
                scheduleNext();
            }, nextDelay().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed meanwhile
        }
    }

    /**
     * {@code max_message_length=131072, created_at_upper_limit=900, auth_required}, or that nothing is stated (a
     * limit of 0 is none).
     */
    static String describe(Limitation limitation) {
        List<String> parts = new ArrayList<>();
        add(parts, "max_message_length", limitation.maxMessageLength());
        add(parts, "max_content_length", limitation.maxContentLength());
        add(parts, "max_limit", limitation.maxLimit());
        add(parts, "created_at_lower_limit", limitation.createdAtLowerLimit());
        add(parts, "created_at_upper_limit", limitation.createdAtUpperLimit());
        add(parts, "max_event_tags", limitation.maxEventTags());
        add(parts, "min_pow_difficulty", limitation.minPowDifficulty());
        if (limitation.authRequired()) {
            parts.add("auth_required");
        }
        if (limitation.restrictedWrites()) {
            parts.add("restricted_writes");
        }
        return parts.isEmpty() ? "none stated" : String.join(", ", parts);
    }

    private static void add(List<String> parts, String name, OptionalInt value) {
        value.ifPresent(v -> parts.add(name + "=" + v));
    }

    private static void add(List<String> parts, String name, OptionalLong value) {
        value.ifPresent(v -> parts.add(name + "=" + v));
    }
}

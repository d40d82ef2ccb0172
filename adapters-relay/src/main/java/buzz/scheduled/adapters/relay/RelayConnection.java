package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection layer under the publishing {@link RelayClient} and the NIP-29 group feed: one JDK
 * {@link WebSocket} to the relay at a time, re-made when it ends, with each text message parsed once into a
 * {@link RelayMessage} for the owner.
 *
 * <ul>
 *   <li>Connect: the handshake within {@link RelaySettings#connectTimeout()}; a failed attempt or an ended
 *       {@link Link} is followed by another after {@link RelaySettings#reconnectDelay} (exponential backoff with
 *       jitter), counted from the last time the owner called {@link Link#healthy()}. After {@link #close()} nothing
 *       is tried again.</li>
 *   <li>Messages: fragments are joined; a message longer than {@link RelaySettings#maxInboundBytes()} characters ends
 *       the link; a message {@link RelayMessage#parse} cannot read is logged and skipped.</li>
 *   <li>NIP-42: the relay's latest challenge is kept per link; {@link Link#authEvent} signs the AUTH event (its
 *       {@code relay} tag is {@link RelaySettings#authUrl()}, {@code BUZZ_RELAY_AUTH_URL}) and the relay's {@code OK}
 *       for it goes to {@link Listener#authAnswered} instead of {@link Listener#received}. When to authenticate is
 *       the owner's choice.</li>
 *   <li>Liveness: a WebSocket ping every {@link RelaySettings#pingInterval()}; no pong by the next one ends the
 *       link.</li>
 * </ul>
 * Callbacks come without any lock of this layer held, so owners may call back into it from them; the messages of
 * one link arrive one at a time, in order. See docs/delivery.md, "The relay connection".
 */
public final class RelayConnection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayConnection.class);
    /** How often a link's ping is checked. */
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** Status code reported for links that end without a close frame (RFC 6455 §7.4.1). */
    public static final int ABNORMAL_CLOSURE = 1006;

    private final RelaySettings settings;
    private final HttpClient http;
    private final ScheduledExecutorService timer;
    private final Listener listener;

    // guarded by this
    private Link link;
    private boolean connecting;
    private boolean closed;
    private int failedAttempts;
    /**
     * Links in a row that the relay ended by breaking the protocol (a message over the size limit): they keep the
     * backoff growing even when the link was found healthy first, so a relay that connects fine and then floods
     * cannot make the sidecar reconnect (and log) at once, forever. Reset by a link that ends without a violation.
     */
    private int violations;
    /** Read without the lock on the publish path: set once a link is open or an attempt is under way. */
    private volatile boolean busy;

    /** What the owner of a connection hears ({@link ConnectionListener}, by the name the owners use). */
    public interface Listener extends ConnectionListener {
    }

    /**
     * @param settings where and how to connect
     * @param http     makes the WebSockets
     * @param timer    runs the reconnects and the ping checks (the owner's; it is not shut down here)
     * @param listener the owner
     */
    public RelayConnection(RelaySettings settings, HttpClient http, ScheduledExecutorService timer,
                           Listener listener) {
        if (settings == null || http == null || timer == null || listener == null) {
            throw new IllegalArgumentException("settings, http, timer and listener are required");
        }
        this.settings = settings;
        this.http = http;
        this.timer = timer;
        this.listener = listener;
    }

    /** Starts an attempt unless a link is open, an attempt (or its backoff) is under way, or this is closed. */
    public void connect() {
        if (busy) {
            return;
        }
        synchronized (this) {
            if (link != null || connecting || closed) {
                return;
            }
            connecting = true;
            busy = true;
        }
        attempt();
    }

    /** The open link, if there is one. */
    public synchronized Optional<Link> link() {
        return Optional.ofNullable(link);
    }

    /** Ends the open link (reported to the listener) and stops reconnecting. */
    @Override
    public void close() {
        Link current;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            current = link;
        }
        if (current != null) {
            current.abort("the connection is closing");
        }
    }

    private void attempt() {
        synchronized (this) {
            if (closed) {
                connecting = false;
                busy = false;
                return;
            }
        }
        Optional<String> refusal;
        try {
            refusal = listener.beforeConnect();
        } catch (RuntimeException e) {
            refusal = Optional.of("preparing the connection failed: " + describe(e));
        }
        if (refusal.isPresent()) {
            connectFailed(refusal.get());
            return;
        }
        Link fresh = new Link();
        http.newWebSocketBuilder()
                .connectTimeout(settings.connectTimeout())
                .buildAsync(settings.url(), fresh)
                .whenComplete((socket, error) -> {
                    if (error != null) {
                        connectFailed(describe(error));
                    } else {
                        opened(fresh, socket);
                    }
                });
    }

    private void opened(Link fresh, WebSocket socket) {
        synchronized (fresh) {
            fresh.socket = socket;
            fresh.lastPingAt = System.nanoTime();
            fresh.lastHeardAt = fresh.lastPingAt;
        }
        boolean abandon;
        synchronized (this) {
            abandon = closed;
            connecting = false;
            if (!abandon) {
                link = fresh;
            } else {
                busy = false;
            }
        }
        if (abandon) {
            socket.abort();
            return;
        }
        try {
            ScheduledFuture<?> keepalive = timer.scheduleWithFixedDelay(fresh::checkPing, TICK_NANOS, TICK_NANOS,
                    TimeUnit.NANOSECONDS);
            synchronized (fresh) {
                fresh.keepalive = keepalive;
                if (fresh.ended) {
                    keepalive.cancel(false);
                }
            }
        } catch (RejectedExecutionException e) {
            fresh.abort("the owner's timer is shut down");
        }
        listener.opened(fresh);
        // An end that came before the owner heard of the link is told only now, so the owner hears opened first.
        boolean endedMeanwhile;
        synchronized (fresh) {
            fresh.announced = true;
            endedMeanwhile = fresh.ended;
        }
        if (endedMeanwhile) {
            ended(fresh, fresh.endCode, fresh.endWhy);
            return;
        }
        socket.request(Long.MAX_VALUE);
    }

    private void connectFailed(String why) {
        Duration delay;
        int failures;
        synchronized (this) {
            if (closed) {
                connecting = false;
                busy = false;
                return;
            }
            failures = ++failedAttempts;
            delay = settings.reconnectDelay(failures - 1, ThreadLocalRandom.current().nextDouble());
        }
        listener.unreachable(why, failures, delay);
        retryIn(delay);
    }

    /** A link ended: told to the owner, then a new attempt after the backoff. */
    private void ended(Link dead, int statusCode, String why) {
        Duration delay;
        synchronized (this) {
            if (link == dead) {
                link = null;
            }
            // A link the owner found healthy starts the backoff afresh; one that never got there counts as failed.
            violations = dead.violated ? violations + 1 : 0;
            delay = settings.reconnectDelay(Math.max(failedAttempts, violations),
                    ThreadLocalRandom.current().nextDouble());
            if (!dead.healthy) {
                failedAttempts++;
            }
            connecting = !closed;
            busy = connecting;
        }
        listener.ended(dead, statusCode, why, delay);
        if (connecting()) {
            retryIn(delay);
        }
    }

    private synchronized boolean connecting() {
        return connecting && !closed;
    }

    private void retryIn(Duration delay) {
        try {
            timer.schedule(this::attempt, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                connecting = false;
                busy = false;
            }
        }
    }

    /**
     * One WebSocket connection to the relay, from open to its end. Writes go either through {@link #send} (queued,
     * one at a time) or through {@link #write} by one writer of the owner that waits for each write; not both.
     */
    public final class Link implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();
        private final Outbox outbox = new Outbox(this::write, this::abort);
        /** Set once, before the owner hears of the link. */
        private volatile WebSocket socket;
        // guarded by this link
        private boolean ended;
        private volatile boolean healthy;
        /** The relay broke the protocol on this link (see {@link RelayConnection#violations}). */
        private volatile boolean violated;
        /** Whether the owner has heard of this link ({@link Listener#opened}); its end is told only after. */
        private boolean announced;
        private int endCode;
        private String endWhy;
        private boolean pingOutstanding;
        private long lastPingAt;
        private volatile long lastHeardAt = System.nanoTime();
        private String challenge;
        /** Read for every {@code OK}, so without a lock. */
        private final AtomicReference<String> authEventId = new AtomicReference<>();
        private ScheduledFuture<?> keepalive;

        private Link() {
        }

        /**
         * Writes {@code text} after the texts sent before it, one write at a time; dropped once the link has ended
         * (a failed write ends it).
         */
        public void send(String text) {
            synchronized (this) {
                if (ended || socket == null) {
                    return;
                }
            }
            outbox.send(text);
        }

        /**
         * Hands {@code text} to the socket as one message; the caller waits for the returned stage before its next
         * write (the JDK allows one at a time) and ends the link when it fails.
         */
        public CompletableFuture<WebSocket> write(String text) {
            try {
                return socket.sendText(text, true);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /**
         * Signs a NIP-42 AUTH event for this link's latest challenge with {@code signer} ({@code relay} tag
         * {@link RelaySettings#authUrl()}, {@code created_at} from {@code clock}) and remembers its id, so that the
         * relay's {@code OK} for it goes to {@link Listener#authAnswered}.
         *
         * @return the {@code ["AUTH", <event>]} message to write, or empty when the relay sent no challenge
         */
        public Optional<String> authEvent(AuthEventSigner signer, WallClock clock) {
            String value;
            synchronized (this) {
                value = challenge;
            }
            if (value == null) {
                return Optional.empty();
            }
            NostrEvent auth = signer.signAuth(settings.authUrl().toString(), value, clock.now().getEpochSecond());
            authEventId.set(auth.id().hex());
            return Optional.of("[\"AUTH\"," + NostrEventJson.write(auth) + "]");
        }

        /** The relay's latest NIP-42 challenge on this link, if it sent one. */
        public synchronized Optional<String> challenge() {
            return Optional.ofNullable(challenge);
        }

        /** Whether an AUTH event made by {@link #authEvent} still waits for the relay's {@code OK}. */
        public boolean authPending() {
            return authEventId.get() != null;
        }

        /** The owner found the relay working on this link: the reconnect backoff starts afresh. */
        public void healthy() {
            healthy = true;
            synchronized (RelayConnection.this) {
                failedAttempts = 0;
            }
        }

        /** {@link System#nanoTime()} when the relay was last heard on this link (a message or a pong). */
        public long lastHeardAt() {
            return lastHeardAt;
        }

        /** Whether this link has ended. */
        public synchronized boolean isEnded() {
            return ended;
        }

        /** Ends this link at once (no close handshake); the listener hears {@code why} once. */
        public void abort(String why) {
            WebSocket target;
            synchronized (this) {
                target = socket;
            }
            LOG.debug("ending the connection to relay {}: {}", settings.url(), why);
            if (target != null) {
                target.abort();
            }
            end(ABNORMAL_CLOSURE, why);
        }

        private void end(int statusCode, String why) {
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
                outbox.close();
                if (keepalive != null) {
                    keepalive.cancel(false);
                }
                if (!announced) {
                    endCode = statusCode;
                    endWhy = why;
                    return;
                }
            }
            ended(this, statusCode, why);
        }

        private void checkPing() {
            long now = System.nanoTime();
            WebSocket target;
            synchronized (this) {
                if (ended || now - lastPingAt <= settings.pingInterval().toNanos()) {
                    return;
                }
                target = pingOutstanding ? null : socket;
                pingOutstanding = true;
                lastPingAt = now;
            }
            if (target == null) {
                abort("no pong within " + settings.pingInterval());
                return;
            }
            target.sendPing(ByteBuffer.wrap(new byte[] {'b', 'z'})).whenComplete((ignored, error) -> {
                if (error != null) {
                    abort("ping failed: " + describe(error));
                }
            });
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            // the owner hears of it once the handshake's future completes (opened), then reading starts
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            if (partial.length() + data.length() > settings.maxInboundBytes()) {
                partial.setLength(0);
                violated = true;
                abort("the relay sent a message longer than " + settings.maxInboundBytes() + " characters");
                return null;
            }
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                lastHeardAt = System.nanoTime();
                receive(text);
            }
            return null;
        }

        private void receive(String text) {
            RelayMessage message;
            try {
                message = RelayMessage.parse(text);
            } catch (IllegalArgumentException e) {
                LOG.warn("ignoring unreadable message from relay {}: {}", settings.url(), e.getMessage());
                return;
            }
            try {
                switch (message) {
                    case RelayMessage.Auth auth -> {
                        synchronized (this) {
                            challenge = auth.challenge();
                        }
                        listener.challenged(this, auth.challenge());
                    }
                    case RelayMessage.Ok ok when isAuthAnswer(ok) -> listener.authAnswered(this, ok.accepted(),
                            ok.message());
                    default -> listener.received(this, message);
                }
            } catch (RuntimeException e) {
                LOG.warn("handling a message from relay {} failed: {}", settings.url(), e.toString());
            }
        }

        private boolean isAuthAnswer(RelayMessage.Ok ok) {
            String id = authEventId.get();
            return id != null && id.equals(ok.eventId()) && authEventId.compareAndSet(id, null);
        }

        @Override
        public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
            synchronized (this) {
                pingOutstanding = false;
            }
            lastHeardAt = System.nanoTime();
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            end(statusCode, "the relay closed the connection (" + statusCode + (reason.isEmpty() ? "" : " " + reason)
                    + ")");
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            end(ABNORMAL_CLOSURE, "connection lost: " + describe(error));
        }
    }

    /** The innermost cause of {@code error} as {@code Type: message}. */
    static String describe(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof java.util.concurrent.CompletionException
                || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + ": " + message;
    }
}

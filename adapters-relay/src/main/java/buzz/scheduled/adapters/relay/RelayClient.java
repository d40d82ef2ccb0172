package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A NIP-01 relay client on the JDK's {@link java.net.http.WebSocket}: one persistent connection, many publishes
 * in flight at once (each {@code OK} is matched to its event id), NIP-42 AUTH with the sidecar's key when
 * the relay answers {@code auth-required:} (then the publish is retried once), and reconnection with
 * exponential backoff after the connection drops. Relay trouble never throws: it becomes a
 * {@link PublishResult.Transient}.
 *
 * <p>The connection is opened by {@link #connect()} or by the first publish, and kept until {@link #close()}.
 * A publish made while the relay is unreachable waits for the connection attempt in progress (within its
 * timeout) and reports {@code unreachable:} when that attempt fails.
 */
public final class RelayClient implements RelayPublisher, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayClient.class);

    private final RelaySettings settings;
    private final AuthEventSigner authSigner;
    private final WallClock clock;
    private final HttpClient http;
    private final ScheduledExecutorService timer;

    private final Object lock = new Object();
    // guarded by lock: the current connection, or the attempt that will give the next one
    private CompletableFuture<RelayLink> link;
    private int failedAttempts;
    private boolean closed;

    /**
     * @param settings   where and how to connect
     * @param authSigner signs NIP-42 AUTH events with the sidecar's key
     * @param clock      gives the AUTH event's {@code created_at}
     */
    public RelayClient(RelaySettings settings, AuthEventSigner authSigner, WallClock clock) {
        if (settings == null || authSigner == null || clock == null) {
            throw new IllegalArgumentException("settings, authSigner and clock are required");
        }
        this.settings = settings;
        this.authSigner = authSigner;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(settings.connectTimeout()).build();
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "relay-reconnect");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Starts connecting if no connection exists or is being made; returns at once.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public void connect() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("relay client for " + settings.url() + " is closed");
            }
            startIfIdle();
        }
    }

    // guarded by lock
    private CompletableFuture<RelayLink> startIfIdle() {
        if (link == null) {
            link = new CompletableFuture<>();
            attempt(link);
        }
        return link;
    }

    /** Whether a connection to the relay is open right now. */
    public boolean isConnected() {
        CompletableFuture<RelayLink> current;
        synchronized (lock) {
            current = link;
        }
        return current != null && current.isDone() && !current.isCompletedExceptionally()
                && !current.join().isClosed();
    }

    @Override
    public PublishResult publish(NostrEvent event, Duration timeout) {
        if (event == null) {
            throw new IllegalArgumentException("event is missing");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("publish timeout must be positive, got " + timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String id = event.id().hex();
        String wire = EventWire.eventMessage(event);
        CompletableFuture<RelayLink> pending;
        synchronized (lock) {
            if (closed) {
                return new PublishResult.Transient("closed: the relay client for " + settings.url() + " is closed");
            }
            pending = startIfIdle();
        }
        RelayLink current;
        try {
            current = await(pending, deadline);
        } catch (TimeoutException e) {
            return new PublishResult.Transient("timeout: no connection to " + settings.url() + " within " + timeout);
        } catch (ExecutionException e) {
            return new PublishResult.Transient("unreachable: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PublishResult.Transient("interrupted: while connecting to " + settings.url());
        }
        try {
            RelayMessage.Ok ok = exchange(current, id, wire, deadline);
            if (ok.authRequired()) {
                RelayMessage.Ok authOk = await(current.authenticate(this::signAuth, settings.connectTimeout()), deadline);
                if (!authOk.accepted()) {
                    return new PublishResult.Transient(
                            "auth-required: the relay refused our AUTH (" + authOk.message() + ")");
                }
                ok = exchange(current, id, wire, deadline);
            }
            return ok.toPublishResult();
        } catch (TimeoutException e) {
            return new PublishResult.Transient("timeout: no OK from the relay within " + timeout);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RelayLink.Dropped dropped) {
                return new PublishResult.Transient("dropped: " + dropped.getMessage());
            }
            if (cause instanceof TimeoutException) {
                return new PublishResult.Transient("timeout: no answer to our AUTH within " + settings.connectTimeout());
            }
            return new PublishResult.Transient("auth-failed: could not answer the relay's AUTH: " + RelayLink.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PublishResult.Transient("interrupted: while waiting for the relay's OK");
        }
    }

    /** Closes the connection and stops reconnecting; publishes still waiting report {@code dropped:}. */
    @Override
    public void close() {
        CompletableFuture<RelayLink> current;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            current = link;
        }
        timer.shutdownNow();
        if (current != null) {
            current.completeExceptionally(new IllegalStateException("relay client closed"));
            if (current.isDone() && !current.isCompletedExceptionally()) {
                current.join().close("relay client closed");
            }
        }
        http.shutdownNow();
    }

    private RelayMessage.Ok exchange(RelayLink current, String id, String wire, long deadline)
            throws ExecutionException, TimeoutException, InterruptedException {
        CompletableFuture<RelayMessage.Ok> answer = current.send(id, wire);
        try {
            return await(answer, deadline);
        } catch (TimeoutException | InterruptedException e) {
            current.forget(id, answer);
            throw e;
        }
    }

    private NostrEvent signAuth(String challenge) {
        return authSigner.signAuth(settings.url().toString(), challenge, clock.now().getEpochSecond());
    }

    private void attempt(CompletableFuture<RelayLink> target) {
        RelayLink fresh = new RelayLink(settings.url().toString(), this::linkEnded);
        http.newWebSocketBuilder()
                .connectTimeout(settings.connectTimeout())
                .buildAsync(settings.url(), fresh)
                .whenComplete((socket, error) -> {
                    if (error != null) {
                        failed(target, error);
                        return;
                    }
                    fresh.attach(socket);
                    boolean abandon;
                    synchronized (lock) {
                        abandon = closed;
                        if (!abandon) {
                            failedAttempts = 0;
                        }
                    }
                    if (abandon) {
                        fresh.close("relay client closed");
                        return;
                    }
                    LOG.info("connected to relay {}", settings.url());
                    target.complete(fresh);
                    if (fresh.isClosed()) {
                        linkEnded(fresh);
                    }
                });
    }

    private void failed(CompletableFuture<RelayLink> target, Throwable error) {
        String reason = RelayLink.describe(error);
        synchronized (lock) {
            if (!closed) {
                // Publishers waiting on this attempt learn at once that the relay is unreachable;
                // later ones wait for the next attempt.
                link = new CompletableFuture<>();
                scheduleAttempt(link, failedAttempts++);
                LOG.warn("cannot connect to relay {}: {}", settings.url(), reason);
            }
        }
        target.completeExceptionally(new IllegalStateException("cannot connect to " + settings.url() + ": " + reason));
    }

    /** Called by a link when its connection ends: start over with the next connection. */
    private void linkEnded(RelayLink ended) {
        synchronized (lock) {
            if (closed || link == null || !link.isDone() || link.isCompletedExceptionally() || link.join() != ended) {
                return;
            }
            link = new CompletableFuture<>();
            scheduleAttempt(link, failedAttempts);
        }
        LOG.warn("lost the connection to relay {}; reconnecting", settings.url());
    }

    // guarded by lock
    private void scheduleAttempt(CompletableFuture<RelayLink> target, int failures) {
        Duration delay = settings.reconnectDelay(failures, ThreadLocalRandom.current().nextDouble());
        timer.schedule(() -> {
            synchronized (lock) {
                if (closed) {
                    return;
                }
            }
            attempt(target);
        }, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    private static <T> T await(CompletableFuture<T> future, long deadline)
            throws ExecutionException, TimeoutException, InterruptedException {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0 && !future.isDone()) {
            throw new TimeoutException();
        }
        return future.get(Math.max(remaining, 0), TimeUnit.NANOSECONDS);
    }
}

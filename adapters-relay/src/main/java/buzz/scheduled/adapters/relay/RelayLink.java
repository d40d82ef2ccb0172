package buzz.scheduled.adapters.relay;

import buzz.scheduled.domain.nostr.NostrEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One WebSocket connection to the relay: sends client messages one after another (the JDK allows one
 * outstanding send), hands each {@code OK} to the oldest caller waiting for that event id, remembers the
 * latest NIP-42 challenge, and fails everything still waiting when the connection ends.
 */
final class RelayLink implements WebSocket.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(RelayLink.class);

    private final String relay;
    private final Consumer<RelayLink> onClosed;
    private final StringBuilder partial = new StringBuilder();

    // guarded by this
    private final Map<String, Deque<CompletableFuture<RelayMessage.Ok>>> waiting = new HashMap<>();
    private WebSocket socket;
    private CompletableFuture<?> lastSend = CompletableFuture.completedFuture(null);
    private String closedReason;
    private CompletableFuture<String> challenge = new CompletableFuture<>();
    private CompletableFuture<RelayMessage.Ok> authentication;

    RelayLink(String relay, Consumer<RelayLink> onClosed) {
        this.relay = relay;
        this.onClosed = onClosed;
    }

    /** Thrown into waiting futures when the connection ends before the answer came. */
    static final class Dropped extends RuntimeException {
        Dropped(String reason) {
            super(reason, null, false, false);
        }
    }

    /**
     * Sends {@code text} (an {@code EVENT} or {@code AUTH} message for {@code eventId}) and returns the future
     * {@code OK} for that id; it fails with {@link Dropped} when the connection ends first. A caller that
     * stops waiting must call {@link #forget}.
     */
    CompletableFuture<RelayMessage.Ok> send(String eventId, String text) {
        CompletableFuture<RelayMessage.Ok> answer = new CompletableFuture<>();
        synchronized (this) {
            if (closedReason != null) {
                answer.completeExceptionally(new Dropped(closedReason));
                return answer;
            }
            // Registered before the bytes leave, so an OK cannot overtake its waiter.
            waiting.computeIfAbsent(eventId, id -> new ArrayDeque<>()).add(answer);
            WebSocket target = socket;
            lastSend = lastSend.handle((ignored, error) -> null)
                    .thenCompose(ignored -> target.sendText(text, true))
                    .whenComplete((ignored, error) -> {
                        if (error != null) {
                            forget(eventId, answer);
                            answer.completeExceptionally(new Dropped("sending failed: " + describe(error)));
                        }
                    });
        }
        return answer;
    }

    /** Stops waiting for the {@code OK} to {@code eventId} that {@code answer} stands for. */
    synchronized void forget(String eventId, CompletableFuture<RelayMessage.Ok> answer) {
        Deque<CompletableFuture<RelayMessage.Ok>> queue = waiting.get(eventId);
        if (queue != null) {
            queue.remove(answer);
            if (queue.isEmpty()) {
                waiting.remove(eventId);
            }
        }
    }

    /**
     * NIP-42: answers the relay's latest challenge with the event {@code sign} makes for it and returns the
     * relay's {@code OK} to that event. Concurrent callers share one attempt; a new attempt starts only after
     * the previous one failed or was refused, or when the relay sent a new challenge.
     *
     * @param limit how long the shared attempt may take (waiting for the challenge included)
     */
    synchronized CompletableFuture<RelayMessage.Ok> authenticate(Function<String, NostrEvent> sign, Duration limit) {
        boolean reusable = authentication != null && !authentication.isCompletedExceptionally()
                && (!authentication.isDone() || authentication.join().accepted());
        if (!reusable) {
            authentication = challenge
                    .thenCompose(value -> {
                        NostrEvent auth = sign.apply(value);
                        return send(auth.id().hex(), EventWire.authMessage(auth));
                    })
                    .orTimeout(limit.toNanos(), TimeUnit.NANOSECONDS);
        }
        return authentication;
    }

    /** Gives the link its socket as soon as the handshake completed (onOpen may run later). */
    synchronized void attach(WebSocket webSocket) {
        if (socket == null) {
            socket = webSocket;
        }
    }

    synchronized boolean isClosed() {
        return closedReason != null;
    }

    /** Closes the connection from our side; everything waiting fails with {@link Dropped}. */
    void close(String reason) {
        WebSocket target;
        synchronized (this) {
            target = socket;
        }
        if (target != null) {
            target.sendClose(WebSocket.NORMAL_CLOSURE, "").whenComplete((ignored, error) -> target.abort());
        }
        drop(reason);
    }

    @Override
    public void onOpen(WebSocket webSocket) {
        attach(webSocket);
        webSocket.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            String text = partial.toString();
            partial.setLength(0);
            receive(text);
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        drop("relay closed the connection (" + statusCode + (reason.isEmpty() ? "" : " " + reason) + ")");
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        drop("connection lost: " + describe(error));
    }

    private void receive(String text) {
        RelayMessage message;
        try {
            message = RelayMessage.parse(text);
        } catch (IllegalArgumentException e) {
            LOG.warn("ignoring unreadable message from relay {}: {}", relay, e.getMessage());
            return;
        }
        switch (message) {
            case RelayMessage.Ok ok -> {
                CompletableFuture<RelayMessage.Ok> first;
                synchronized (this) {
                    Deque<CompletableFuture<RelayMessage.Ok>> queue = waiting.get(ok.eventId());
                    first = queue == null ? null : queue.poll();
                    if (queue != null && queue.isEmpty()) {
                        waiting.remove(ok.eventId());
                    }
                }
                if (first == null) {
                    LOG.debug("OK from relay {} for {} that nobody waits for (late answer?)", relay, ok.eventId());
                } else {
                    first.complete(ok);
                }
            }
            case RelayMessage.Auth auth -> {
                synchronized (this) {
                    if (!challenge.complete(auth.challenge())) {
                        challenge = CompletableFuture.completedFuture(auth.challenge());
                        authentication = null;
                    }
                }
            }
            case RelayMessage.Notice notice -> LOG.info("NOTICE from relay {}: {}", relay, notice.message());
            case RelayMessage.Other other -> LOG.debug("ignoring {} from relay {}", other.type(), relay);
        }
    }

    private void drop(String reason) {
        List<CompletableFuture<RelayMessage.Ok>> orphans = new ArrayList<>();
        CompletableFuture<String> pendingChallenge;
        synchronized (this) {
            if (closedReason != null) {
                return;
            }
            closedReason = reason;
            waiting.values().forEach(orphans::addAll);
            waiting.clear();
            pendingChallenge = challenge;
        }
        // The owner learns first, so a caller woken below already finds the next connection being made.
        onClosed.accept(this);
        Dropped dropped = new Dropped(reason);
        orphans.forEach(future -> future.completeExceptionally(dropped));
        pendingChallenge.completeExceptionally(dropped);
    }

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

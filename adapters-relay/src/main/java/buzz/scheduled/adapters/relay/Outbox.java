package buzz.scheduled.adapters.relay;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The texts a {@link RelayConnection.Link} sends through {@link RelayConnection.Link#send}: written one at a time in
 * the order given (the JDK WebSocket allows one write at a time), until a write fails or the link ends.
 */
final class Outbox {
    private final Function<String, CompletableFuture<?>> write;
    private final Consumer<String> fail;
    // guarded by this
    private final ArrayDeque<String> texts = new ArrayDeque<>();
    private boolean sending;
    private boolean closed;

    /**
     * @param write hands one text to the socket
     * @param fail  ends the link with the reason a write failed
     */
    Outbox(Function<String, CompletableFuture<?>> write, Consumer<String> fail) {
        this.write = write;
        this.fail = fail;
    }

    /** Writes {@code text} after the texts sent before it; dropped once closed. */
    void send(String text) {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (sending) {
                texts.addLast(text);
                return;
            }
            sending = true;
        }
        sendFrom(text);
    }

    private void sendFrom(String first) {
        String text = first;
        while (text != null) {
            CompletableFuture<?> sent = write.apply(text);
            if (!sent.isDone()) {
                sent.whenComplete((ignored, error) -> {
                    if (error != null) {
                        fail.accept("sending to the relay failed: " + RelayConnection.describe(error));
                    } else {
                        sendFrom(next());
                    }
                });
                return;
            }
            if (sent.isCompletedExceptionally()) {
                fail.accept("sending to the relay failed: " + RelayConnection.describe(sent.exceptionNow()));
                return;
            }
            text = next();
        }
    }

    private synchronized String next() {
        String next = closed ? null : texts.pollFirst();
        sending = next != null;
        return next;
    }

    /** Drops what waits; nothing is written after this. */
    synchronized void close() {
        closed = true;
        texts.clear();
    }
}

package buzz.scheduled.bootstrap;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A live NIP-01 subscription ({@code ["REQ", sub, filter]}, kept open after {@code EOSE}) that records when
 * each event reached this test: the relay broadcasts an event to subscribers as it accepts it, so the arrival
 * time bounds when the sidecar published it.
 */
final class LiveEvents implements AutoCloseable {

    /** An event as the relay sent it, and when it arrived (this machine's clock). */
    record Arrival(Instant at, String json) {
        /** The event's id, read from its JSON text. */
        String eventId() {
            int key = json.indexOf("\"id\":\"");
            if (key < 0) {
                throw new IllegalStateException("no id in " + json);
            }
            return json.substring(key + 6, key + 6 + 64);
        }
    }

    private final HttpClient http = HttpClient.newHttpClient();
    private final List<Arrival> arrivals = new ArrayList<>();
    private final WebSocket socket;

    private LiveEvents(URI relay, String filterJson) throws Exception {
        String prefix = "[\"EVENT\",\"live\",";
        CompletableFuture<Void> caughtUp = new CompletableFuture<>();
        WebSocket.Listener listener = new WebSocket.Listener() {
            private final StringBuilder partial = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    Instant at = Instant.now();
                    String text = partial.toString();
                    partial.setLength(0);
                    if (text.startsWith(prefix) && text.endsWith("]")) {
                        synchronized (arrivals) {
                            arrivals.add(new Arrival(at, text.substring(prefix.length(), text.length() - 1)));
                            arrivals.notifyAll();
                        }
                    } else if (text.startsWith("[\"EOSE\",\"live\"")) {
                        caughtUp.complete(null);
                    }
                }
                webSocket.request(1);
                return null;
            }
        };
        socket = http.newWebSocketBuilder().buildAsync(relay, listener).get(10, TimeUnit.SECONDS);
        socket.sendText("[\"REQ\",\"live\"," + filterJson + "]", true).get(10, TimeUnit.SECONDS);
        caughtUp.get(10, TimeUnit.SECONDS);
    }

    /** Subscribes to {@code filterJson} at {@code relay} and returns once the relay sent its stored events. */
    static LiveEvents subscribe(URI relay, String filterJson) throws Exception {
        return new LiveEvents(relay, filterJson);
    }

    /** Waits until at least {@code count} events arrived (stored ones included); returns them all. */
    List<Arrival> await(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (arrivals) {
            while (arrivals.size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("only " + arrivals.size() + " of " + count + " events arrived within "
                            + timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(arrivals, left);
            }
            return List.copyOf(arrivals);
        }
    }

    /** What arrived so far. */
    List<Arrival> arrivals() {
        synchronized (arrivals) {
            return List.copyOf(arrivals);
        }
    }

    @Override
    public void close() {
        socket.abort();
        http.close();
    }
}

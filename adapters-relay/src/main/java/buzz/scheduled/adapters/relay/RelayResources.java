package buzz.scheduled.adapters.relay;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;

/** The HTTP client and the threads that the relay adapters' background parts (feeds, NIP-11 refresh) make alike. */
public final class RelayResources {

    private RelayResources() {
    }

    /**
     * An HTTP client for a relay's NIP-11 document and WebSocket. HTTP/1.1: an HTTP/2 upgrade offer on the NIP-11
     * request would look like a failed WebSocket upgrade.
     */
    public static HttpClient http11(Duration connectTimeout) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout).build();
    }

    /** Makes daemon threads named {@code name}. */
    public static ThreadFactory daemonThreads(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}

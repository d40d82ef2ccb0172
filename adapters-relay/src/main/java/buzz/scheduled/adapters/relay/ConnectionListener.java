package buzz.scheduled.adapters.relay;

import java.time.Duration;
import java.util.Optional;

/**
 * What the owner of a {@link RelayConnection} hears, as {@link RelayConnection.Listener}. Called on the WebSocket's
 * or the timer's thread, without any lock of the connection held.
 */
public interface ConnectionListener {

    /**
     * Runs before each attempt (on the caller of {@link RelayConnection#connect()} or the timer): a reason not to
     * connect now (the attempt is then counted as failed, {@link #unreachable} is told, and another follows after the
     * backoff), or empty to go on.
     */
    default Optional<String> beforeConnect() {
        return Optional.empty();
    }

    /** {@code link} is open; nothing was read from it yet. */
    void opened(RelayConnection.Link link);

    /** A message from the relay on {@code link}, parsed. */
    void received(RelayConnection.Link link, RelayMessage message);

    /**
     * The relay sent {@code ["AUTH", challenge]} on {@code link} (NIP-42); {@link RelayConnection.Link#challenge()}
     * has it.
     */
    default void challenged(RelayConnection.Link link, String challenge) {
    }

    /** The relay answered the AUTH event of {@link RelayConnection.Link#authEvent} with {@code OK}. */
    default void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
    }

    /**
     * {@code link} ended (closed by the relay with {@code statusCode}, failed, or aborted by us with
     * {@value RelayConnection#ABNORMAL_CLOSURE}); called once per link, after {@link #opened} has returned. Unless
     * the connection is closed, another attempt follows in {@code retryIn}.
     */
    void ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn);

    /**
     * An attempt failed ({@code failures} in a row, the first is 1): {@code why} is the handshake's error as
     * {@code Type: message}, or the reason of {@link #beforeConnect}. The next follows in {@code retryIn}.
     */
    void unreachable(String why, int failures, Duration retryIn);
}

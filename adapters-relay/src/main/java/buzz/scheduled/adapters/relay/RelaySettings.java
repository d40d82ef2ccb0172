package buzz.scheduled.adapters.relay;

import java.net.URI;
import java.time.Duration;

/**
 * How the relay client connects.
 *
 * @param url            the relay's WebSocket URL, {@code ws://} or {@code wss://} with a host
 * @param connectTimeout longest wait for the WebSocket handshake, and for the relay's answer to our NIP-42 AUTH
 * @param initialBackoff wait before the first reconnect after a drop; doubles per failed attempt
 * @param maxBackoff     the longest wait between reconnect attempts
 * @throws IllegalArgumentException naming the value that is wrong
 */
public record RelaySettings(URI url, Duration connectTimeout, Duration initialBackoff, Duration maxBackoff) {

    /** Handshake timeout when none is given. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** First reconnect delay when none is given. */
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(250);
    /** Longest reconnect delay when none is given. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);

    public RelaySettings {
        if (url == null) {
            throw new IllegalArgumentException("relay url is missing");
        }
        if (!"ws".equals(url.getScheme()) && !"wss".equals(url.getScheme())) {
            throw new IllegalArgumentException("relay url must start with ws:// or wss://, got " + url);
        }
        if (url.getHost() == null || url.getHost().isEmpty()) {
            throw new IllegalArgumentException("relay url has no host: " + url);
        }
        requirePositive("connectTimeout", connectTimeout);
        requirePositive("initialBackoff", initialBackoff);
        requirePositive("maxBackoff", maxBackoff);
        if (initialBackoff.compareTo(maxBackoff) > 0) {
            throw new IllegalArgumentException(
                    "initialBackoff " + initialBackoff + " is longer than maxBackoff " + maxBackoff);
        }
    }

    /** Settings for {@code url} with the default timeout and backoff. */
    public static RelaySettings of(URI url) {
        return new RelaySettings(url, DEFAULT_CONNECT_TIMEOUT, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF);
    }

    /**
     * The wait before the next reconnect attempt: {@code initialBackoff · 2^failedAttempts}, capped at
     * {@code maxBackoff}, of which the upper half is jitter ("equal jitter", so clients that lost the relay
     * together do not come back in lockstep).
     *
     * @param failedAttempts connection attempts that failed since the last successful one, ≥ 0
     * @param random         a number in [0, 1)
     */
    public Duration reconnectDelay(int failedAttempts, double random) {
        if (failedAttempts < 0) {
            throw new IllegalArgumentException("failedAttempts must not be negative, got " + failedAttempts);
        }
        if (!(random >= 0 && random < 1)) {
            throw new IllegalArgumentException("random must be in [0, 1), got " + random);
        }
        long cap = maxBackoff.toNanos();
        long base = initialBackoff.toNanos();
        for (int i = 0; i < failedAttempts && base < cap; i++) {
            base *= 2;
        }
        base = Math.min(base, cap);
        return Duration.ofNanos(base / 2 + (long) (random * (base - base / 2)));
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}

package buzz.scheduled.adapters.relay;

import java.net.URI;
import java.time.Duration;

/**
 * How the relay client connects.
 *
 * @param url                     the relay's WebSocket URL, {@code ws://} or {@code wss://} with a host
 * @param authUrl                 the URL put in the {@code relay} tag of our NIP-42 AUTH events: the relay's own
 *                                public URL, which relays such as strfry and khatru require, when {@code url} is an
 *                                internal address ({@code BUZZ_RELAY_AUTH_URL}; {@code url} by default)
 * @param connectTimeout          longest wait for the WebSocket handshake, for the relay's answer to our NIP-42 AUTH,
 *                                and for its answer to a {@code REQ} that asks whether it has an event
 * @param initialBackoff          wait before the first reconnect after a drop; doubles per failed attempt
 * @param maxBackoff              the longest wait between reconnect attempts
 * @param authChallengeWait       how long a fresh connection, which writes its first {@code EVENT} at once, holds the
 *                                others back for the relay's answer or an AUTH challenge (never the first: some
 *                                relays challenge only after an {@code auth-required:} answer)
 * @param pingInterval            a WebSocket ping is sent this often; no pong by the next one ends the connection
 * @param maxInboundBytes         the longest message accepted from the relay (UTF-16 characters); a longer one ends
 *                                the connection
 * @param timeoutsBeforeReconnect publishes in a row that get no answer on one connection, with nothing else heard
 *                                from the relay, before that connection is given up as half-open
 * @throws IllegalArgumentException naming the value that is wrong
 */
public record RelaySettings(URI url, URI authUrl, Duration connectTimeout, Duration initialBackoff,
                            Duration maxBackoff, Duration authChallengeWait, Duration pingInterval,
                            int maxInboundBytes, int timeoutsBeforeReconnect) {

    /** Handshake timeout when none is given. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** First reconnect delay when none is given. */
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(250);
    /** Longest reconnect delay when none is given. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);
    /** How long a fresh connection holds all but its first EVENT for the relay's first word, by default. */
    public static final Duration DEFAULT_AUTH_CHALLENGE_WAIT = Duration.ofMillis(250);
    /** Ping interval by default. */
    public static final Duration DEFAULT_PING_INTERVAL = Duration.ofSeconds(30);
    /** Longest inbound message by default: 4 Mi characters, far above an event of the largest content. */
    public static final int DEFAULT_MAX_INBOUND = 4 << 20;
    /** Unanswered publishes in a row before a connection is given up, by default. */
    public static final int DEFAULT_TIMEOUTS_BEFORE_RECONNECT = 3;

    public RelaySettings {
        requireWebSocketUrl("url", url);
        requireWebSocketUrl("authUrl", authUrl);
        requirePositive("connectTimeout", connectTimeout);
        requirePositive("initialBackoff", initialBackoff);
        requirePositive("maxBackoff", maxBackoff);
        requirePositive("authChallengeWait", authChallengeWait);
        requirePositive("pingInterval", pingInterval);
        if (initialBackoff.compareTo(maxBackoff) > 0) {
            throw new IllegalArgumentException(
                    "initialBackoff " + initialBackoff + " is longer than maxBackoff " + maxBackoff);
        }
        if (maxInboundBytes < 64 << 10) {
            throw new IllegalArgumentException("maxInboundBytes must be at least 65536, got " + maxInboundBytes);
        }
        if (timeoutsBeforeReconnect < 1) {
            throw new IllegalArgumentException("timeoutsBeforeReconnect must be at least 1, got "
                    + timeoutsBeforeReconnect);
        }
    }

    /** The three connection settings of earlier versions; the rest take their defaults. */
    public RelaySettings(URI url, Duration connectTimeout, Duration initialBackoff, Duration maxBackoff) {
        this(url, url, connectTimeout, initialBackoff, maxBackoff, DEFAULT_AUTH_CHALLENGE_WAIT, DEFAULT_PING_INTERVAL,
                DEFAULT_MAX_INBOUND, DEFAULT_TIMEOUTS_BEFORE_RECONNECT);
    }

    /** Settings for {@code url} with the defaults. */
    public static RelaySettings of(URI url) {
        return new RelaySettings(url, DEFAULT_CONNECT_TIMEOUT, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF);
    }

    /** These settings with the AUTH {@code relay} tag URL set. */
    public RelaySettings withAuthUrl(URI value) {
        return new RelaySettings(url, value, connectTimeout, initialBackoff, maxBackoff, authChallengeWait,
                pingInterval, maxInboundBytes, timeoutsBeforeReconnect);
    }

    /** These settings with another ping interval. */
    public RelaySettings withPingInterval(Duration value) {
        return new RelaySettings(url, authUrl, connectTimeout, initialBackoff, maxBackoff, authChallengeWait, value,
                maxInboundBytes, timeoutsBeforeReconnect);
    }

    /** These settings with another longest inbound message. */
    public RelaySettings withMaxInboundBytes(int value) {
        return new RelaySettings(url, authUrl, connectTimeout, initialBackoff, maxBackoff, authChallengeWait,
                pingInterval, value, timeoutsBeforeReconnect);
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

    private static void requireWebSocketUrl(String name, URI value) {
        if (value == null) {
            throw new IllegalArgumentException("relay " + name + " is missing");
        }
        if (!"ws".equals(value.getScheme()) && !"wss".equals(value.getScheme())) {
            throw new IllegalArgumentException("relay " + name + " must start with ws:// or wss://, got " + value);
        }
        if (value.getHost() == null || value.getHost().isEmpty()) {
            throw new IllegalArgumentException("relay " + name + " has no host: " + value);
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}

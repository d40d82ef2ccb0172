package buzz.scheduled.adapters.http;

import java.time.Duration;

/**
 * What one client may hold of the server's connections (README.md "Configuration", connection limits). The
 * defaults suit a sidecar exposed to the internet: no single client can exhaust the connections, the heap or the
 * threads by opening connections and sending nothing, or sending a byte now and then.
 *
 * @param maxConnections           {@code BUZZ_HTTP_MAX_CONNECTIONS}: most open connections in all; at the cap the
 *                                 server stops accepting (new connections wait in the kernel's listen backlog) until
 *                                 one closes (Jetty's {@code NetworkConnectionLimit})
 * @param maxConnectionsPerAddress {@code BUZZ_HTTP_MAX_CONNECTIONS_PER_IP}: most open connections from one remote IP
 *                                 address; one more is closed at once, before anything of it is read. 0: no cap.
 *                                 Behind a reverse proxy every connection comes from the proxy's address: set 0 (or
 *                                 more than the proxy's upstream connections) and let the proxy cap per client
 * @param headerTimeout            {@code BUZZ_HTTP_HEADER_TIMEOUT_SECONDS}: a connection that has not delivered a
 *                                 whole request line and headers this long after it opened, or after its previous
 *                                 answer, is closed; bytes that arrive do not extend it
 * @param bodyTimeout              {@code BUZZ_HTTP_BODY_TIMEOUT_SECONDS}: a request body not read whole this long
 *                                 after its reading began is answered {@code 408 request_timeout}
 * @param idleTimeout              how long a connection may make no progress at all while a request is being
 *                                 handled (reading or writing) before Jetty ends the wait
 */
public record ConnectionLimits(int maxConnections, int maxConnectionsPerAddress, Duration headerTimeout,
                               Duration bodyTimeout, Duration idleTimeout) {

    /** Default global cap: 1024 connections. */
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    /**
     * Default cap per remote address: 64 connections (a browser opens at most 6 per origin; a backend calling from
     * one address may pool a few dozen).
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64;
    /** Default header timeout: 10 s. */
    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
    /** Default body timeout: 30 s (a 12 MiB body at 400 KiB/s; the default body cap is under 1 MiB). */
    public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(30);
    /** Default idle timeout: 30 s (Jetty's own default). */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    /**
     * The listen backlog the connector asks for: 1024 connections the kernel completes while the server has not
     * accepted them yet (Jetty's default, 0, leaves Java's 50: a burst of connections from an attacker then fills it
     * and an honest client's SYN is dropped and retried a second later). Linux caps it at
     * {@code net.core.somaxconn}.
     */
    public static final int ACCEPT_QUEUE = 1024;
    /** The defaults above. */
    public static final ConnectionLimits DEFAULTS = new ConnectionLimits(DEFAULT_MAX_CONNECTIONS,
            DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, DEFAULT_HEADER_TIMEOUT, DEFAULT_BODY_TIMEOUT, DEFAULT_IDLE_TIMEOUT);

    /** @throws IllegalArgumentException for a cap below 1 (0 for the per-address cap) or a timeout under 100 ms */
    public ConnectionLimits {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("the connection cap must be at least 1, got " + maxConnections);
        }
        if (maxConnectionsPerAddress < 0) {
            throw new IllegalArgumentException("the per-address connection cap must be 0 (none) or more, got "
                    + maxConnectionsPerAddress);
        }
        requireTimeout("header", headerTimeout);
        requireTimeout("body", bodyTimeout);
        requireTimeout("idle", idleTimeout);
    }

    /** A copy with other caps. */
    public ConnectionLimits withCaps(int max, int perAddress) {
        return new ConnectionLimits(max, perAddress, headerTimeout, bodyTimeout, idleTimeout);
    }

    /** A copy with other header and body timeouts. */
    public ConnectionLimits withTimeouts(Duration header, Duration body) {
        return new ConnectionLimits(maxConnections, maxConnectionsPerAddress, header, body, idleTimeout);
    }

    private static void requireTimeout(String name, Duration timeout) {
        if (timeout == null || timeout.toMillis() < 100) {
            throw new IllegalArgumentException("the " + name + " timeout must be at least 100 ms, got " + timeout);
        }
    }
}

package buzz.scheduled.adapters.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.EventsHandler;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection limits Jetty has no setting for ({@link ConnectionLimits}), as a {@link Connection.Listener} bean
 * of the connector: the cap per remote IP address (a connection over it is closed as it opens, counted as
 * {@code buzz_http_connections_refused_total{reason="per_ip_limit"}}) and the header timeout. Jetty's idle timeout
 * starts again with every byte, so a client dripping a byte now and then holds a connection for ever; here a sweep
 * on the connector's {@link Scheduler} (every quarter of the header timeout, 50 ms to 1 s) closes every connection
 * that has waited longer than the header timeout for a whole request line and headers, counted as
 * {@code buzz_http_connections_timed_out_total{reason="header"}}. The wait starts when the connection opens and again
 * when the sweep first sees its previous request answered (so a keep-alive connection may wait up to one sweep
 * longer); what arrives meanwhile does not matter. Whether a connection waits is read from Jetty's request and
 * answer counts ({@link Connection#getMessagesIn()}: requests whose headers were complete; {@link
 * Connection#getMessagesOut()}: answers begun) and the answers written whole ({@link #answered(Connection)}, told by
 * {@link #completions()}), so a request being handled, its body included, is never cut here. Jetty counts an answer
 * when it begins: an answer still being written (a client reading a large page slowly, a process stalled between
 * the head and the body) is not waiting for a request, and is given the body timeout, from when the sweep first sees
 * it being written, to be read whole (a client that stops reading is closed then, counted with {@code reason}
 * {@code response}).
 * The open connections are the gauge {@code buzz_http_connections_open}. Nothing here logs above DEBUG: a client
 * can produce these events at will.
 */
final class ConnectionGuard extends AbstractLifeCycle implements Connection.Listener {
    /** {@code reason} of a connection closed for the per-address cap. */
    static final String PER_ADDRESS = "per_ip_limit";
    /** {@code reason} of the times the global cap was reached (accepting paused). */
    static final String GLOBAL = "max_connections";
    /** {@code reason} of a connection closed by the header timeout. */
    static final String HEADER = "header";
    /** {@code reason} of a connection whose answer was not read whole within the body timeout. */
    static final String RESPONSE = "response";
    /** Every {@code reason} a refusal is counted under. */
    static final List<String> REFUSAL_REASONS = List.of(PER_ADDRESS, GLOBAL);
    /** Every {@code reason} a timeout is counted under. */
    static final List<String> TIMEOUT_REASONS = List.of(HEADER, RESPONSE);

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

    private final ConnectionLimits limits;
    private final Scheduler scheduler;
    private final RequestMetrics metrics;
    private final long headerNanos;
    private final long responseNanos;
    private final long sweepNanos;
    private final Map<Connection, ConnectionWatch> open = new ConcurrentHashMap<>();
    private final Map<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    private volatile Scheduler.Task next;

    /**
     * @param limits    the caps and the header timeout
     * @param scheduler where the sweep runs (the connector's)
     * @param metrics   where refusals and timeouts are counted
     */
    ConnectionGuard(ConnectionLimits limits, Scheduler scheduler, RequestMetrics metrics) {
        this.limits = limits;
        this.scheduler = scheduler;
        this.metrics = metrics;
        this.headerNanos = limits.headerTimeout().toNanos();
        this.responseNanos = limits.bodyTimeout().toNanos();
        this.sweepNanos = Math.clamp(headerNanos / 4, TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.SECONDS.toNanos(1));
    }

    /**
     * Jetty's global cap ({@link NetworkConnectionLimit}) on {@code connector}, counting each time it is reached as
     * {@code buzz_http_connections_refused_total{reason="max_connections"}}. While at the cap, connections that make
     * no progress for the header timeout are ended by their idle timeout, so the cap frees up sooner.
     */
    NetworkConnectionLimit globalCap(Connector connector) {
        NetworkConnectionLimit cap = new NetworkConnectionLimit(limits.maxConnections(), connector) {
            @Override
            protected void limit() {
                super.limit();
                metrics.connectionRefused(GLOBAL);
                LOG.debug("{} connections open: no more are accepted until one closes", limits.maxConnections());
            }
        };
        cap.setEndPointIdleTimeout(limits.headerTimeout().toMillis());
        return cap;
    }

    /** How many connections are open now. */
    int openConnections() {
        return open.size();
    }

    @Override
    protected void doStart() {
        schedule();
    }

    @Override
    protected void doStop() {
        Scheduler.Task task = next;
        if (task != null) {
            task.cancel();
        }
    }

    @Override
    public void onOpened(Connection connection) {
        EndPoint endPoint = connection.getEndPoint();
        InetAddress address = address(endPoint.getRemoteSocketAddress());
        ConnectionWatch watch = new ConnectionWatch(address, NanoTime.now(), headerNanos, responseNanos);
        open.put(connection, watch);
        if (address == null || limits.maxConnectionsPerAddress() == 0) {
            return;
        }
        int count = perAddress.merge(address, 1, Integer::sum);
        if (count > limits.maxConnectionsPerAddress()) {
            watch.close();
            metrics.connectionRefused(PER_ADDRESS);
            LOG.debug("closing a connection from {}: {} are open from there (BUZZ_HTTP_MAX_CONNECTIONS_PER_IP)",
                    address.getHostAddress(), count);
            endPoint.close();
        }
    }

    @Override
    public void onClosed(Connection connection) {
        ConnectionWatch watch = open.remove(connection);
        if (watch != null && watch.address() != null && limits.maxConnectionsPerAddress() > 0) {
            perAddress.computeIfPresent(watch.address(), (address, count) -> count <= 1 ? null : count - 1);
        }
    }

    private void schedule() {
        if (isRunning() || isStarting()) {
            next = scheduler.schedule(this::sweep, sweepNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void sweep() {
        try {
            long now = NanoTime.now();
            for (Map.Entry<Connection, ConnectionWatch> entry : open.entrySet()) {
                Connection connection = entry.getKey();
                ConnectionWatch watch = entry.getValue();
                long in = connection.getMessagesIn();
                long out = connection.getMessagesOut();
                if (watch.closing() || in < 0 || out < 0) {
                    continue;
                }
                switch (watch.observe(in, out, now)) {
                    case KEEP -> {
                    }
                    case CLOSE_HEADER -> close(connection, watch, HEADER, "no whole request head within "
                            + limits.headerTimeout().toMillis() + " ms");
                    case CLOSE_RESPONSE -> close(connection, watch, RESPONSE, "its answer was not read whole within "
                            + limits.bodyTimeout().toMillis() + " ms");
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("the connection sweep failed: {}", e.toString());
        } finally {
            schedule();
        }
    }

    private void close(Connection connection, ConnectionWatch watch, String reason, String why) {
        watch.close();
        metrics.connectionTimedOut(reason);
        LOG.debug("closing a connection from {}: {}",
                watch.address() == null ? "?" : watch.address().getHostAddress(), why);
        connection.getEndPoint().close();
    }

    /** Tells the guard that an answer on {@code connection} was written whole. */
    void answered(Connection connection) {
        ConnectionWatch watch = open.get(connection);
        if (watch != null) {
            watch.answerWritten();
        }
    }

    /**
     * The server's outermost handler: it tells the {@link ConnectionGuard} of each request's connector when that
     * request's answer was written whole (Jetty's {@link EventsHandler#onComplete}), so the sweep can tell an answer
     * still being written from a connection waiting for its next request. The application's handlers go inside it.
     */
    static Handler completions() {
        return new EventsHandler() {
            @Override
            protected void onComplete(Request request, int status, HttpFields headers, Throwable failure) {
                ConnectionMetaData meta = request.getConnectionMetaData();
                ConnectionGuard guard = meta.getConnector().getBean(ConnectionGuard.class);
                if (guard != null) {
                    guard.answered(meta.getConnection());
                }
            }
        };
    }

    private static InetAddress address(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }
}

package buzz.scheduled.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.testing.Poll;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The connection limits on the real Jetty server of {@link HttpApi} ({@link ConnectionLimits},
 * {@link ConnectionGuard}, the body deadline of {@link BodyCap}), driven by raw sockets bound to loopback addresses
 * of their own (Linux routes all of 127/8 to lo), so "one client" is one source address.
 */
class ConnectionLimitsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final List<Socket> sockets = new ArrayList<>();
    private final ScheduledExecutorService drip = Executors.newSingleThreadScheduledExecutor();

    @BeforeEach
    void listen() {
        logged.start();
        root.addAppender(logged);
    }

    @AfterEach
    void close() throws IOException {
        root.detachAppender(logged);
        drip.shutdownNow();
        for (Socket socket : sockets) {
            socket.close();
        }
    }

    private static ApiFixture api(UnaryOperator<ConnectionLimits> limits) {
        return new ApiFixture(settings -> settings.withConnections(limits.apply(ConnectionLimits.DEFAULTS)),
                () -> new ReadinessCheck.Readiness.Ready());
    }

    /**
     * An {@code Authorization} header line signed by an owner, without a payload tag: a body is read only for a
     * caller whose NIP-98 header checks out, so only such a caller can stall or abort an upload.
     */
    private static String signedBy(ApiFixture api) {
        return "Authorization: " + api.nip98(ApiFixture.ALICE, "POST", ApiFixture.BASE + "/v1/scheduled-messages",
                new byte[0], false) + "\r\n";
    }

    @Test
    void perAddressCap_closesTheConnectionOverIt_whileAnotherAddressStillConnects() throws Exception {
        try (ApiFixture api = api(limits -> limits.withCaps(100, 3))) {
            for (int i = 0; i < 3; i++) {
                open(api, "127.0.0.2");
            }
            Poll.until("three connections open", WAIT, () -> open(api) == 3);
            Socket fourth = open(api, "127.0.0.2");

            Poll.until("the fourth connection from 127.0.0.2 to be closed", WAIT, () -> closedByServer(fourth));
            assertThat(refused(api, ConnectionGuard.PER_ADDRESS)).isEqualTo(1.0);
            assertThat(healthz(open(api, "127.0.0.3"))).startsWith("HTTP/1.1 200");
            assertThat(closedByServer(sockets.get(0))).as("the first three stay open").isFalse();
        }
    }

    @Test
    void globalCap_stopsAccepting_untilAConnectionCloses() throws Exception {
        try (ApiFixture api = api(limits -> limits.withCaps(4, 0))) {
            List<Socket> held = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                held.add(open(api, "127.0.0.4"));
            }
            Poll.until("four connections open", WAIT, () -> open(api) == 4);
            Poll.until("the cap to be counted", WAIT, () -> refused(api, ConnectionGuard.GLOBAL) >= 1.0);
            Socket waiting = open(api, "127.0.0.5");
            send(waiting, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
            waiting.setSoTimeout(500);
            assertThat(readOrTimeout(waiting)).as("no answer while at the cap").isNull();

            held.getFirst().close();

            waiting.setSoTimeout(5_000);
            assertThat(readOrTimeout(waiting)).as("answered once a connection closed").startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void headerTimeout_isNotExtendedByDrippedBytes() throws Exception {
        try (ApiFixture api = api(limits -> limits.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(30)))) {
            Socket dripping = open(api, "127.0.0.6");
            byte[] line = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            long opened = System.nanoTime();
            int[] next = {0};
            drip.scheduleAtFixedRate(() -> {
                try {
                    if (next[0] < line.length) {
                        dripping.getOutputStream().write(line[next[0]++]);
                    }
                } catch (IOException closed) {
                    // the server closed it; the test below notices
                }
            }, 0, 100, TimeUnit.MILLISECONDS);

            Poll.until("the dripping connection to be closed", Duration.ofSeconds(5), () -> closedByServer(dripping));
            Duration held = Duration.ofNanos(System.nanoTime() - opened);
            assertThat(held).isBetween(Duration.ofMillis(900), Duration.ofMillis(2_000));
            assertThat(next[0]).as("bytes dripped before the close").isLessThan(line.length);
            assertThat(timedOut(api)).isEqualTo(1.0);
            assertThat(errorsAndStacks()).isEmpty();
        }
    }

    @Test
    void headerTimeout_startsAgainAfterAnAnswer_onAKeptAliveConnection() throws Exception {
        try (ApiFixture api = api(limits -> limits.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(30)))) {
            Socket kept = open(api, "127.0.0.7");
            assertThat(healthz(kept)).startsWith("HTTP/1.1 200");
            long answered = System.nanoTime();

            Poll.until("the idle kept-alive connection to be closed", Duration.ofSeconds(5),
                    () -> closedByServer(kept));
            assertThat(Duration.ofNanos(System.nanoTime() - answered))
                    .isBetween(Duration.ofMillis(600), Duration.ofMillis(2_500));
        }
    }

    @Test
    void stalledBody_isAnswered408_withOneWarningAndNoStackTrace() throws Exception {
        try (ApiFixture api = api(limits -> limits.withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(1)))) {
            Socket stalled = open(api, "127.0.0.8");
            long started = System.nanoTime();
            send(stalled, "POST /v1/scheduled-messages HTTP/1.1\r\nHost: t\r\n" + signedBy(api)
                    + "Content-Type: application/json\r\n"
                    + "Content-Length: 50000\r\n\r\n{\"event\":{");
            stalled.setSoTimeout(5_000);

            String answer = readOrTimeout(stalled);

            assertThat(answer).startsWith("HTTP/1.1 408").contains("\"error\":\"request_timeout\"");
            // The body timeout (1 s), not the header timeout (10 s), answered it; the margin is for a loaded machine.
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
            assertThat(warnings()).singleElement().asString().contains("POST /v1/scheduled-messages")
                    .contains("408").contains("10 of 50000 bytes");
            assertThat(errorsAndStacks()).isEmpty();
        }
    }

    @Test
    void drippedBody_isAnswered408_atTheDeadline() throws Exception {
        try (ApiFixture api = api(limits -> limits.withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(1)))) {
            Socket slow = open(api, "127.0.0.9");
            send(slow, "POST /v1/scheduled-messages HTTP/1.1\r\nHost: t\r\n" + signedBy(api)
                    + "Content-Length: 50000\r\n\r\n");
            long started = System.nanoTime();
            drip.scheduleAtFixedRate(() -> {
                try {
                    slow.getOutputStream().write(' ');
                } catch (IOException closed) {
                    // answered and closed
                }
            }, 0, 100, TimeUnit.MILLISECONDS);
            slow.setSoTimeout(5_000);

            assertThat(readOrTimeout(slow)).startsWith("HTTP/1.1 408");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(2_500));
            assertThat(errorsAndStacks()).isEmpty();
        }
    }

    @Test
    void abortedUpload_isOneWarning_withoutErrorOrStackTrace() throws Exception {
        try (ApiFixture api = api(limits -> limits)) {
            Socket aborting = open(api, "127.0.0.10");
            send(aborting, "POST /v1/scheduled-messages HTTP/1.1\r\nHost: t\r\n" + signedBy(api)
                    + "Content-Length: 50000\r\n\r\n"
                    + "{\"event\":{");
            Poll.until("the request to be read", WAIT, () -> open(api) == 1);
            aborting.close();

            Poll.until("the aborted upload to be logged", WAIT, () -> !warnings().isEmpty());
            Poll.until("the connection to be gone", WAIT, () -> open(api) == 0);
            assertThat(warnings()).singleElement().asString().contains("POST /v1/scheduled-messages")
                    .contains("400").contains("ended early").contains("10 of 50000 bytes");
            assertThat(errorsAndStacks()).isEmpty();
            assertThat(api.api.requestCount("POST", "/v1/scheduled-messages", 503)).isZero();
        }
    }

    @Test
    void openConnectionsGauge_followsTheConnections() throws Exception {
        try (ApiFixture api = api(limits -> limits)) {
            List<Socket> four = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                four.add(open(api, "127.0.0.11"));
            }
            Poll.until("the gauge to say 4", WAIT, () -> open(api) == 4);
            four.get(0).close();
            four.get(1).close();
            Poll.until("the gauge to say 2", WAIT, () -> open(api) == 2);
            assertThat(api.registry.scrape()).contains("buzz_http_connections_open 2.0");
        }
    }

    // ---- helpers -----------------------------------------------------------------------------------------------

    private Socket open(ApiFixture api, String from) throws IOException {
        Socket socket = new Socket();
        sockets.add(socket);
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", api.port), 2_000);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** One {@code GET /healthz} on {@code socket}, kept alive; the answer's head and body. */
    private static String healthz(Socket socket) throws IOException {
        send(socket, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
        socket.setSoTimeout(5_000);
        return readOrTimeout(socket);
    }

    /** What arrives on {@code socket} until a pause of 50 ms after the first byte; null when nothing came in time. */
    private static String readOrTimeout(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        int timeout = socket.getSoTimeout();
        try {
            int first = in.read();
            if (first < 0) {
                return null;
            }
            read.write(first);
            socket.setSoTimeout(50);
            byte[] buffer = new byte[4096];
            for (int n; (n = in.read(buffer)) > 0; ) {
                read.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException pause) {
            if (read.size() == 0) {
                return null;
            }
        } finally {
            socket.setSoTimeout(timeout);
        }
        return read.toString(StandardCharsets.UTF_8);
    }

    /** Whether the server closed {@code socket} (end of stream or reset); waits at most 20 ms for it. */
    private static boolean closedByServer(Socket socket) {
        try {
            int timeout = socket.getSoTimeout();
            socket.setSoTimeout(20);
            try {
                return socket.getInputStream().read() < 0;
            } finally {
                socket.setSoTimeout(timeout);
            }
        } catch (SocketTimeoutException open) {
            return false;
        } catch (SocketException reset) {
            return true;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int open(ApiFixture api) {
        Gauge gauge = api.registry.find(HttpMetrics.CONNECTIONS_OPEN).gauge();
        return gauge == null ? -1 : (int) gauge.value();
    }

    private static double refused(ApiFixture api, String reason) {
        Counter counter = api.registry.find(HttpMetrics.CONNECTIONS_REFUSED).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    private static double timedOut(ApiFixture api) {
        Counter counter = api.registry.find(HttpMetrics.CONNECTIONS_TIMED_OUT).tag("reason", ConnectionGuard.HEADER)
                .counter();
        return counter == null ? 0 : counter.count();
    }


    private List<String> warnings() {
        return logged.list.stream().filter(event -> event.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    private List<String> errorsAndStacks() {
        return logged.list.stream().filter(event -> event.getLevel() == Level.ERROR || event.getThrowableProxy() != null)
                .map(event -> event.getLevel() + " " + event.getLoggerName() + " " + event.getFormattedMessage())
                .toList();
    }
}

package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 against a real {@code serve} process: 3000 connections from 10 loopback addresses (127.0.0.2 to
 * 127.0.0.11; Linux routes all of 127/8 to lo) each drip one byte of a request line every second, and reconnect
 * when closed, for 20 seconds, with the default connection caps and a 2-second header timeout. Meanwhile a probe
 * from 127.0.0.1 calls {@code GET /healthz} on a new connection every 200 ms, and an owner creates and reads a
 * message with real NIP-98 headers. Every probe must answer 200 within 1 s, the owner's calls must succeed, no
 * dripping connection may live much past the header timeout, and {@code serve} must log no ERROR. After the flood,
 * a stalled upload is answered {@code 408} and an aborted one logs one WARN line. The figures
 * (connections held, refused, closed by the timeout; the probe's worst latency; the server's heap) are printed.
 */
class ConnectionFloodProcessTest {

    private static final int CONNECTIONS = 3000;
    private static final int SOURCES = 10;
    private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration BODY_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration ATTACK = Duration.ofSeconds(20);
    private static final String UPLOAD = "POST /v1/scheduled-messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"event\":{";
    private static final int TICKS_PER_DRIP = 10;
    private static final Duration TICK = Duration.ofMillis(100);
    private static final byte[] REQUEST_LINE = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);
    private static final Pattern HEAP_USED = Pattern.compile(
            "(?m)^jvm_memory_used_bytes\\{area=\"heap\"[^}]*} ([0-9.Ee+-]+)$");
    private static final Pattern HEAP_MAX = Pattern.compile(
            "(?m)^jvm_memory_max_bytes\\{area=\"heap\"[^}]*} ([0-9.Ee+-]+)$");

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void threeThousandDrippingConnections_leaveHealthzFast_andAreClosedByTheHeaderTimeout() throws Exception {
        int port = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        try (TestRelay relay = TestRelay.start(); Flood flood = new Flood(port)) {
            Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                    "HTTP_PORT", Integer.toString(port), "BUZZ_SCHEDULED_MESSAGES", "on",
                    "RELAY_URL", relay.url().toString(), "DATABASE_URL", db.postgresUrl(),
                    "BUZZ_HTTP_HEADER_TIMEOUT_SECONDS", Long.toString(HEADER_TIMEOUT.toSeconds()),
                    "BUZZ_HTTP_BODY_TIMEOUT_SECONDS", Long.toString(BODY_TIMEOUT.toSeconds())), log);
            ServeProcesses.awaitHealthy(serve, port, log);
            double heapBefore = sum(HEAP_USED, metrics(port));

            ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
            List<Long> latencies = new ArrayList<>();
            List<String> failedProbes = new ArrayList<>();
            AtomicLong heapPeak = new AtomicLong();
            AtomicInteger openPeak = new AtomicInteger();
            long attackStart = System.nanoTime();
            flood.start(timers, attackStart + ATTACK.toNanos());
            ScheduledFuture<?> probes = timers.scheduleAtFixedRate(() -> {
                long started = System.nanoTime();
                String answer = healthz(port);
                long millis = (System.nanoTime() - started) / 1_000_000;
                synchronized (latencies) {
                    latencies.add(millis);
                    if (answer == null || !answer.startsWith("HTTP/1.1 200")) {
                        failedProbes.add(millis + " ms: " + answer);
                    }
                }
            }, 0, 200, TimeUnit.MILLISECONDS);
            ScheduledFuture<?> sampling = timers.scheduleAtFixedRate(() -> {
                String text = metrics(port);
                if (text != null) {
                    heapPeak.accumulateAndGet((long) sum(HEAP_USED, text), Math::max);
                    openPeak.accumulateAndGet((int) sum(Pattern.compile(
                            "(?m)^buzz_http_connections_open ([0-9.Ee+-]+)$"), text), Math::max);
                }
            }, 500, 1_000, TimeUnit.MILLISECONDS);

            flood.awaitHolding(Duration.ofSeconds(30));
            OwnerClient owner = new OwnerClient(port);
            NostrEvent event = owner.message("flood", "scheduled during the flood", Duration.ofHours(1));
            OwnerClient.Reply created = owner.schedule(event);
            OwnerClient.Reply read = owner.get(created.json() == null ? "none" : created.json().path("id").asText());

            flood.finished.get(ATTACK.plusSeconds(30).toSeconds(), TimeUnit.SECONDS);
            probes.cancel(false);
            sampling.cancel(false);
            timers.shutdown();
            assertThat(timers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            flood.stop();
            // Only a signed caller's body is read, so only a signed caller can stall or abort an upload. After the
            // flood: on a loaded machine a head that Jetty parses later than the 2 s header timeout is rightly cut
            // by the header sweep, and this answer is about the body timeout.
            String stalled = stalledUpload(port, owner.authorization("POST", "/v1/scheduled-messages"));
            abortedUpload(port, owner.authorization("POST", "/v1/scheduled-messages"));
            String finalMetrics = metrics(port);

            long worst;
            synchronized (latencies) {
                worst = latencies.stream().mapToLong(Long::longValue).max().orElse(-1);
            }
            String report = String.format(Locale.ROOT, "connection flood against serve: %d connections from %d"
                            + " addresses, one byte a second each, header timeout %d s, %d s of attack:%n"
                            + "  client side: %d connections opened (%d connects failed), at most %d open at once; %d"
                            + " closed within 1 s of opening (refused), %d closed later (header timeout), longest"
                            + " life %d ms%n"
                            + "  server side: connections open at most %d (gauge), refused per_ip_limit %.0f,"
                            + " max_connections reached %.0f, closed by the header timeout %.0f%n"
                            + "  /healthz: %d probes, worst %d ms, %d failed; owner create %d, read %d%n"
                            + "  heap used: %.1f MiB before, at most %.1f MiB during (max heap %.0f MiB)",
                    CONNECTIONS, SOURCES, HEADER_TIMEOUT.toSeconds(), ATTACK.toSeconds(), flood.opened.get(),
                    flood.failedConnects.get(), flood.openPeak.get(), flood.closedQuickly.get(), flood.closedLater.get(),
                    flood.longestLife.get() / 1_000_000, openPeak.get(),
                    counter(finalMetrics, "buzz_http_connections_refused_total", "per_ip_limit"),
                    counter(finalMetrics, "buzz_http_connections_refused_total", "max_connections"),
                    counter(finalMetrics, "buzz_http_connections_timed_out_total", "header"), latencies.size(),
                    worst, failedProbes.size(), created.status(), read.status(), heapBefore / (1 << 20),
                    heapPeak.get() / (double) (1 << 20), sum(HEAP_MAX, finalMetrics) / (1 << 20));
            System.out.println(report);

            assertThat(failedProbes).as(report).isEmpty();
            assertThat(latencies).as(report).hasSizeGreaterThan(50).allSatisfy(ms -> assertThat(ms).isLessThan(1_000));
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            assertThat(read.status()).as(read.text()).isEqualTo(200);
            assertThat(flood.opened.get()).as(report).isGreaterThan(CONNECTIONS);
            assertThat(flood.closedLater.get()).as(report).isGreaterThan(SOURCES * 64);
            assertThat(flood.longestLife.get()).as("no dripping connection outlives the header timeout by much; "
                    + report).isLessThan(HEADER_TIMEOUT.plusMillis(1_500).toNanos());
            assertThat(counter(finalMetrics, "buzz_http_connections_timed_out_total", "header")).as(report)
                    .isGreaterThanOrEqualTo(flood.closedLater.get());
            assertThat(counter(finalMetrics, "buzz_http_connections_refused_total", "per_ip_limit")).as(report)
                    .isGreaterThan(0);
            assertThat(stalled).as("a stalled upload").startsWith("HTTP/1.1 408").contains("request_timeout");
            String output = buzz.scheduled.application.testing.Poll.until("the aborted upload's WARN line",
                    Duration.ofSeconds(10), () -> ServeProcesses.output(log), text -> text.contains("ended early"));
            assertThat(output).doesNotContain(" ERROR ").doesNotContain("\tat ");
            assertThat(output.lines().filter(line -> line.contains(" WARN ") && line.matches(".*(Http|Jetty|jetty).*")))
                    .as("one WARN line for each upload, none for the flood").hasSize(2)
                    .anySatisfy(line -> assertThat(line).contains("answered 408"))
                    .anySatisfy(line -> assertThat(line).contains("answered 400").contains("ended early"));
        }
    }

    /** {@code GET /healthz} on a new connection from 127.0.0.1; the answer, or null after 1 s or a failure. */
    private static String healthz(int port) {
        return get(port, "/healthz", 1_000);
    }

    private static String metrics(int port) {
        return get(port, "/metrics", 5_000);
    }

    /** An upload that sends 10 of its 100000 bytes and waits: the answer ({@code 408} after the body timeout). */
    private static String stalledUpload(int port, String authorization) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) BODY_TIMEOUT.plusSeconds(5).toMillis());
            socket.getOutputStream().write(UPLOAD.formatted(authorization).getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(answer);
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    /** An upload that sends 10 of its 100000 bytes and closes the connection. */
    private static void abortedUpload(int port, String authorization) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(UPLOAD.formatted(authorization).getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static String get(int port, String path, int timeoutMillis) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            in.transferTo(answer);
            return answer.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    private static double sum(Pattern pattern, String text) {
        if (text == null) {
            return 0;
        }
        double total = 0;
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            total += Double.parseDouble(matcher.group(1));
        }
        return total;
    }

    private static double counter(String text, String name, String reason) {
        return sum(Pattern.compile("(?m)^" + name + "\\{reason=\"" + reason + "\"} ([0-9.Ee+-]+)$"), text);
    }

    /**
     * The attacker: {@link #CONNECTIONS} non-blocking connections, one selector thread that notices the server's
     * close at once, and a tick every {@link #TICK} that drips the next byte on a tenth of them (each gets one a
     * second) and reopens those found closed.
     */
    private static final class Flood implements AutoCloseable {
        private final InetSocketAddress server;
        private final Selector selector;
        private final Slot[] slots = new Slot[CONNECTIONS];
        private final Thread reader;
        private final AtomicInteger open = new AtomicInteger();
        final AtomicInteger opened = new AtomicInteger();
        final AtomicInteger openPeak = new AtomicInteger();
        final AtomicInteger closedQuickly = new AtomicInteger();
        final AtomicInteger closedLater = new AtomicInteger();
        final AtomicLong longestLife = new AtomicLong();
        final AtomicInteger failedConnects = new AtomicInteger();
        private final AtomicInteger tried = new AtomicInteger();
        private volatile String lastFailure = "none";
        private volatile boolean running = true;
        private volatile ScheduledFuture<?> drip;
        private long tick;
        private volatile long end;
        /** Completed by the drip once the attack has lasted its time. */
        final CompletableFuture<Void> finished = new CompletableFuture<>();

        /** One attacking connection; {@code channel} is null while closed. */
        private static final class Slot {
            final String source;
            SocketChannel channel;
            long openedAt;
            int next;
            boolean tried;

            Slot(String source) {
                this.source = source;
            }
        }

        Flood(int port) throws IOException {
            server = new InetSocketAddress("127.0.0.1", port);
            selector = Selector.open();
            for (int i = 0; i < CONNECTIONS; i++) {
                slots[i] = new Slot("127.0.0." + (2 + (i / TICKS_PER_DRIP) % SOURCES));
            }
            reader = Thread.ofPlatform().name("flood-reader").daemon().unstarted(this::read);
        }

        /** Starts dripping; {@link #finished} completes at the first tick at or after {@code endNanos}. */
        void start(ScheduledExecutorService timers, long endNanos) {
            this.end = endNanos;
            reader.start();
            drip = timers.scheduleAtFixedRate(this::tick, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Waits until every slot has been tried once (the first round of connects is done). */
        void awaitHolding(Duration limit) {
            try {
                buzz.scheduled.application.testing.Poll.until("all " + CONNECTIONS + " connections tried once",
                        limit, () -> tried.get() >= CONNECTIONS);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + ": " + tried.get() + " tried, " + opened.get() + " opened, "
                        + failedConnects.get()
                        + " connects failed (last: " + lastFailure + "), tick " + tick, e);
            }
        }

        void stop() throws InterruptedException {
            running = false;
            if (drip != null) {
                drip.cancel(false);
            }
            selector.wakeup();
            reader.join(5_000);
        }

        private void tick() {
            try {
                drip();
            } catch (RuntimeException | Error e) {
                lastFailure = e.toString();
                throw e;
            }
        }

        private void drip() {
            int round = (int) (tick++ % TICKS_PER_DRIP);
            long now = System.nanoTime();
            if (now - end >= 0) {
                finished.complete(null);
                return;
            }
            for (int i = round; i < CONNECTIONS && running; i += TICKS_PER_DRIP) {
                Slot slot = slots[i];
                synchronized (slot) {
                    if (!slot.tried) {
                        slot.tried = true;
                        tried.incrementAndGet();
                    }
                    try {
                        if (slot.channel == null) {
                            connect(slot);
                        } else {
                            slot.channel.write(ByteBuffer.wrap(REQUEST_LINE, slot.next % REQUEST_LINE.length, 1));
                            slot.next++;
                        }
                    } catch (IOException refusedOrReset) {
                        closed(slot, System.nanoTime());
                    }
                }
            }
        }

        private void connect(Slot slot) throws IOException {
            SocketChannel channel = SocketChannel.open();
            try {
                channel.bind(new InetSocketAddress(slot.source, 0));
                channel.socket().connect(server, 2_000);
                channel.configureBlocking(false);
                channel.write(ByteBuffer.wrap(REQUEST_LINE, 0, 1));
                slot.channel = channel;
                slot.openedAt = System.nanoTime();
                slot.next = 1;
                opened.incrementAndGet();
                openPeak.accumulateAndGet(open.incrementAndGet(), Math::max);
                channel.register(selector, SelectionKey.OP_READ, slot);
            } catch (IOException | RuntimeException e) {
                failedConnects.incrementAndGet();
                lastFailure = e.toString();
                if (slot.channel == null) {
                    channel.close();
                }
                throw e instanceof IOException io ? io : new IOException(e);
            }
        }

        private void closed(Slot slot, long now) {
            if (slot.channel == null) {
                return;
            }
            long life = now - slot.openedAt;
            longestLife.accumulateAndGet(life, Math::max);
            (life < TimeUnit.SECONDS.toNanos(1) ? closedQuickly : closedLater).incrementAndGet();
            open.decrementAndGet();
            try {
                slot.channel.close();
            } catch (IOException ignored) {
                // closing a closed channel
            }
            slot.channel = null;
        }

        private void read() {
            ByteBuffer buffer = ByteBuffer.allocate(4096);
            while (running) {
                try {
                    selector.select(100);
                    for (SelectionKey key : selector.selectedKeys()) {
                        Slot slot = (Slot) key.attachment();
                        synchronized (slot) {
                            if (slot.channel != key.channel()) {
                                key.cancel();
                                continue;
                            }
                            buffer.clear();
                            int n;
                            try {
                                n = slot.channel.read(buffer);
                            } catch (IOException reset) {
                                n = -1;
                            }
                            if (n < 0) {
                                key.cancel();
                                closed(slot, System.nanoTime());
                            }
                        }
                    }
                    selector.selectedKeys().clear();
                } catch (ClosedChannelException | java.nio.channels.ClosedSelectorException e) {
                    return;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        @Override
        public void close() throws IOException, InterruptedException {
            stop();
            for (Slot slot : slots) {
                synchronized (slot) {
                    if (slot.channel != null) {
                        slot.channel.close();
                        slot.channel = null;
                    }
                }
            }
            selector.close();
        }
    }
}

package buzz.scheduled.adapters.relay.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An in-JVM relay for the faults a real relay will not produce on demand: {@code rate-limited:} or
 * {@code error:} answers, {@code auth-required:} until the client AUTHs, no answer, a late answer, a dropped
 * socket. It speaks just enough WebSocket (RFC 6455: handshake, text frames, ping, close) over a plain
 * {@link ServerSocket} on a loopback port, and records every client message with the time it arrived.
 *
 * <pre>{@code
 * try (FakeRelay relay = FakeRelay.start()) {
 *     relay.answerEvents(FakeRelay.Answer.reply(false, "rate-limited: slow down"));
 *     ... publish to relay.url() ...
 *     assertThat(relay.received("EVENT")).hasSize(1);
 * }
 * }</pre>
 *
 * <p>It does not check ids or signatures; use {@link TestRelay} for anything a real relay can answer.
 */
public final class FakeRelay implements AutoCloseable {
    private static final String WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the fake does with an {@code EVENT} (from an authenticated connection, when AUTH is required). */
    public sealed interface Answer {
        /** {@code ["OK", <id>, accepted, message]} at once. */
        record Reply(boolean accepted, String message) implements Answer {
            public Reply {
                Objects.requireNonNull(message, "message");
            }
        }

        /** Never answer. */
        record Silence() implements Answer {
        }

        /** Answer {@code reply} after {@code delay}. */
        record Late(Duration delay, Reply reply) implements Answer {
            public Late {
                Objects.requireNonNull(delay, "delay");
                Objects.requireNonNull(reply, "reply");
            }
        }

        /** Close the TCP connection abruptly (RST, no WebSocket close frame) instead of answering. */
        record Drop() implements Answer {
        }

        /** {@code OK true ""}. */
        static Answer accept() {
            return new Reply(true, "");
        }

        /** {@code OK <accepted> <message>}. */
        static Answer reply(boolean accepted, String message) {
            return new Reply(accepted, message);
        }

        /** No answer at all. */
        static Answer silence() {
            return new Silence();
        }

        /** {@code OK <accepted> <message>} after {@code delay}. */
        static Answer late(Duration delay, boolean accepted, String message) {
            return new Late(delay, new Reply(accepted, message));
        }

        /** Drop the socket. */
        static Answer drop() {
            return new Drop();
        }
    }

    /**
     * One message a client sent.
     *
     * @param at         when it arrived (wall clock of the test JVM)
     * @param connection 1 for the first connection accepted, 2 for the next, ...
     * @param type       the message type ({@code EVENT}, {@code AUTH}, {@code REQ}, ...)
     * @param text       the message exactly as received
     * @param json       the parsed message
     */
    public record Received(Instant at, int connection, String type, String text, JsonNode json) {
        /** For {@code EVENT} and {@code AUTH}: the event's {@code id}; otherwise {@code ""}. */
        public String eventId() {
            JsonNode event = json.get(1);
            return event != null && event.has("id") ? event.get("id").asText() : "";
        }

        /** For {@code EVENT} and {@code AUTH}: the event object. */
        public JsonNode event() {
            return json.get(1);
        }
    }

    private final ServerSocket server;
    private final ScheduledExecutorService timer;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final List<String> sent = new CopyOnWriteArrayList<>();
    private final List<Connection> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final Object lock = new Object();
    // guarded by lock
    private final List<Answer> answers = new ArrayList<>(List.of(Answer.accept()));
    private String challenge;
    private String authRefusal;

    private FakeRelay(ServerSocket server) {
        this.server = server;
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fake-relay-timer");
            thread.setDaemon(true);
            return thread;
        });
        Thread acceptor = new Thread(this::acceptLoop, "fake-relay-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts a fake relay on a free loopback port; it accepts every event until told otherwise. */
    public static FakeRelay start() {
        return start(0);
    }

    /** Starts a fake relay on {@code port} (0 = any free port) of the loopback interface. */
    public static FakeRelay start(int port) {
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return new FakeRelay(server);
        } catch (IOException e) {
            throw new IllegalStateException("fake relay cannot listen on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** {@code ws://127.0.0.1:<port>}. */
    public URI url() {
        return URI.create("ws://" + server.getInetAddress().getHostAddress() + ":" + server.getLocalPort());
    }

    /** The port it listens on. */
    public int port() {
        return server.getLocalPort();
    }

    /**
     * Sets how the following {@code EVENT}s are answered: the first gets {@code sequence[0]}, the next
     * {@code sequence[1]}, ...; the last answer repeats.
     */
    public void answerEvents(Answer... sequence) {
        if (sequence.length == 0) {
            throw new IllegalArgumentException("give at least one answer");
        }
        synchronized (lock) {
            answers.clear();
            answers.addAll(List.of(sequence));
        }
    }

    /**
     * NIP-42: from now on every new connection gets {@code ["AUTH", challenge]}, and an {@code EVENT} on a
     * connection that has not authenticated is answered {@code OK false "auth-required: ..."}. An {@code AUTH}
     * event of kind 22242 with tags {@code challenge} = {@code challenge} and a {@code relay} tag is accepted
     * (signatures are not checked here).
     */
    public void requireAuth(String challenge) {
        synchronized (lock) {
            this.challenge = Objects.requireNonNull(challenge, "challenge");
        }
    }

    /** Answers every {@code AUTH} with {@code OK false message}. */
    public void refuseAuth(String message) {
        synchronized (lock) {
            this.authRefusal = Objects.requireNonNull(message, "message");
        }
    }

    /** Everything received so far, in arrival order. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    /** The messages of one type ({@code EVENT}, {@code AUTH}, ...) received so far, in arrival order. */
    public List<Received> received(String type) {
        return received.stream().filter(message -> message.type().equals(type)).toList();
    }

    /**
     * Waits until a received message matches {@code condition}.
     *
     * @throws TimeoutException when none did within {@code timeout}
     */
    public Received awaitReceived(Predicate<Received> condition, Duration timeout)
            throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (received) {
            while (true) {
                for (Received message : received) {
                    if (condition.test(message)) {
                        return message;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("no matching message within " + timeout + "; received " + received);
                }
                TimeUnit.NANOSECONDS.timedWait(received, left);
            }
        }
    }

    /** Every text message the fake sent to clients, in order. */
    public List<String> sent() {
        return List.copyOf(sent);
    }

    /**
     * Waits until the fake has sent a message matching {@code condition} (e.g. a late {@code OK}).
     *
     * @throws TimeoutException when it did not within {@code timeout}
     */
    public String awaitSent(Predicate<String> condition, Duration timeout) throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (sent) {
            while (true) {
                for (String message : sent) {
                    if (condition.test(message)) {
                        return message;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("no matching message sent within " + timeout + "; sent " + sent);
                }
                TimeUnit.NANOSECONDS.timedWait(sent, left);
            }
        }
    }

    /** How many connections were accepted so far. */
    public int connectionCount() {
        return connections.get();
    }

    /**
     * Waits until at least {@code count} connections were accepted.
     *
     * @throws TimeoutException when fewer arrived within {@code timeout}
     */
    public void awaitConnections(int count, Duration timeout) throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (connections) {
            while (connections.get() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException(
                            "only " + connections.get() + " of " + count + " connections within " + timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(connections, left);
            }
        }
    }

    /**
     * Half-open connections: every connection open now keeps reading and recording what the client sends but writes
     * nothing any more, neither answers nor pongs (a peer that vanished without closing). Later connections are
     * answered as usual.
     */
    public void blackholeOpenConnections() {
        open.forEach(connection -> connection.blackholed = true);
    }

    /** Sends {@code text} as one text message to every open connection (a relay pushing something unasked). */
    public void sendToClients(String text) throws IOException {
        for (Connection connection : open) {
            connection.send(text);
        }
    }

    /** Drops every open connection abruptly (TCP reset, no close frame). */
    public void dropConnections() {
        open.forEach(Connection::drop);
    }

    /** Stops listening and drops every connection. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        dropConnections();
        timer.shutdownNow();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                int number;
                synchronized (connections) {
                    number = connections.incrementAndGet();
                    connections.notifyAll();
                }
                Connection connection = new Connection(socket, number);
                open.add(connection);
                Thread reader = new Thread(connection::run, "fake-relay-connection-" + number);
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void record(Received message) {
        synchronized (received) {
            received.add(message);
            received.notifyAll();
        }
    }

    private Answer nextAnswer() {
        synchronized (lock) {
            return answers.size() > 1 ? answers.removeFirst() : answers.getFirst();
        }
    }

    private final class Connection {
        private final Socket socket;
        private final int number;
        private volatile OutputStream out;
        private volatile boolean authenticated;
        private volatile boolean blackholed;

        Connection(Socket socket, int number) {
            this.socket = socket;
            this.number = number;
        }

        void run() {
            try (socket) {
                DataInputStream in = new DataInputStream(socket.getInputStream());
                out = socket.getOutputStream();
                handshake(in);
                String pendingChallenge;
                synchronized (lock) {
                    pendingChallenge = challenge;
                }
                if (pendingChallenge != null) {
                    send(array("AUTH", pendingChallenge));
                }
                ByteArrayOutputStream message = new ByteArrayOutputStream();
                while (true) {
                    int head = in.read();
                    if (head < 0) {
                        return;
                    }
                    boolean fin = (head & 0x80) != 0;
                    int opcode = head & 0x0f;
                    byte[] payload = readPayload(in);
                    switch (opcode) {
                        case 0x0, 0x1 -> {
                            message.write(payload);
                            if (fin) {
                                handle(message.toString(StandardCharsets.UTF_8));
                                message.reset();
                            }
                        }
                        case 0x8 -> {
                            writeFrame(0x8, payload.length >= 2 ? new byte[] {payload[0], payload[1]} : new byte[0]);
                            return;
                        }
                        case 0x9 -> writeFrame(0xA, payload);
                        default -> {
                            // pong and reserved opcodes: nothing to do
                        }
                    }
                }
            } catch (IOException e) {
                // the client went away or we dropped it
            } finally {
                open.remove(this);
            }
        }

        private void handshake(DataInputStream in) throws IOException {
            String key = null;
            for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("sec-websocket-key")) {
                    key = line.substring(colon + 1).trim();
                }
            }
            if (key == null) {
                writeRaw("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
                throw new IOException("not a WebSocket handshake");
            }
            writeRaw("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: " + accept(key) + "\r\n\r\n");
        }

        private void handle(String text) throws IOException {
            JsonNode json;
            try {
                json = JSON.readTree(text);
            } catch (JsonProcessingException e) {
                send(array("NOTICE", "invalid: not JSON"));
                return;
            }
            String type = json.isArray() && !json.isEmpty() ? json.get(0).asText() : "";
            Received message = new Received(Instant.now(), number, type, text, json);
            record(message);
            switch (type) {
                case "EVENT" -> onEvent(message);
                case "AUTH" -> onAuth(message);
                case "REQ" -> send(array("EOSE", json.path(1).asText()));
                default -> {
                    // CLOSE and others need no answer here
                }
            }
        }

        private void onEvent(Received message) throws IOException {
            String id = message.eventId();
            boolean authRequired;
            synchronized (lock) {
                authRequired = challenge != null;
            }
            if (authRequired && !authenticated) {
                send(ok(id, false, "auth-required: authenticate first"));
                return;
            }
            switch (nextAnswer()) {
                case Answer.Reply reply -> send(ok(id, reply.accepted(), reply.message()));
                case Answer.Silence silence -> {
                    // the client will have to time out
                }
                case Answer.Late late -> timer.schedule(() -> {
                    try {
                        send(ok(id, late.reply().accepted(), late.reply().message()));
                    } catch (IOException ignored) {
                        // the client is gone; nothing to answer
                    }
                }, late.delay().toNanos(), TimeUnit.NANOSECONDS);
                case Answer.Drop drop -> drop();
            }
        }

        private void onAuth(Received message) throws IOException {
            JsonNode event = message.event();
            String expected;
            String refusal;
            synchronized (lock) {
                expected = challenge;
                refusal = authRefusal;
            }
            String problem = null;
            if (event == null || event.path("kind").asInt(-1) != 22242) {
                problem = "invalid: AUTH event must be kind 22242";
            } else if (expected == null || !expected.equals(tag(event, "challenge"))) {
                problem = "invalid: wrong challenge";
            } else if (tag(event, "relay") == null) {
                problem = "invalid: missing relay tag";
            } else if (refusal != null) {
                problem = refusal;
            }
            if (problem == null) {
                authenticated = true;
            }
            send(ok(message.eventId(), problem == null, problem == null ? "" : problem));
        }

        void drop() {
            try {
                socket.setSoLinger(true, 0);
                socket.close();
            } catch (IOException ignored) {
                // already gone
            }
        }

        private void send(String text) throws IOException {
            writeFrame(0x1, text.getBytes(StandardCharsets.UTF_8));
            synchronized (sent) {
                sent.add(text);
                sent.notifyAll();
            }
        }

        private void writeFrame(int opcode, byte[] payload) throws IOException {
            if (blackholed) {
                return;
            }
            synchronized (this) {
                out.write(0x80 | opcode);
                if (payload.length < 126) {
                    out.write(payload.length);
                } else if (payload.length <= 0xffff) {
                    out.write(126);
                    out.write(payload.length >>> 8);
                    out.write(payload.length & 0xff);
                } else {
                    out.write(127);
                    long length = payload.length;
                    for (int shift = 56; shift >= 0; shift -= 8) {
                        out.write((int) (length >>> shift) & 0xff);
                    }
                }
                out.write(payload);
                out.flush();
            }
        }

        private void writeRaw(String text) throws IOException {
            synchronized (this) {
                out.write(text.getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        }
    }

    private static byte[] readPayload(DataInputStream in) throws IOException {
        int second = in.readUnsignedByte();
        boolean masked = (second & 0x80) != 0;
        long length = second & 0x7f;
        if (length == 126) {
            length = in.readUnsignedShort();
        } else if (length == 127) {
            length = in.readLong();
        }
        if (length < 0 || length > 64L * 1024 * 1024) {
            throw new IOException("frame too large: " + length);
        }
        byte[] mask = new byte[4];
        if (masked) {
            in.readFully(mask);
        }
        byte[] payload = new byte[(int) length];
        in.readFully(payload);
        if (masked) {
            for (int i = 0; i < payload.length; i++) {
                payload[i] ^= mask[i & 3];
            }
        }
        return payload;
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed during the handshake");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    private static String accept(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1")
                    .digest((key + WEBSOCKET_GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JDK", e);
        }
    }

    private static String tag(JsonNode event, String name) {
        for (JsonNode tag : event.path("tags")) {
            if (tag.size() >= 2 && name.equals(tag.get(0).asText())) {
                return tag.get(1).asText();
            }
        }
        return null;
    }

    private static String ok(String id, boolean accepted, String message) {
        return JsonNodeFactory.instance.arrayNode().add("OK").add(id).add(accepted).add(message).toString();
    }

    private static String array(String type, String value) {
        return JsonNodeFactory.instance.arrayNode().add(type).add(value).toString();
    }
}

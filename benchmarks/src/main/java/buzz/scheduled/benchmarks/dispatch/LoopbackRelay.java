package buzz.scheduled.benchmarks.dispatch;

import buzz.scheduled.application.port.out.WallClock;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The relay of the dispatch benchmark: an in-JVM NIP-01 relay on 127.0.0.1 over a real WebSocket (RFC 6455 over a
 * plain {@link ServerSocket}: handshake, masked client frames, fragmentation, ping, close) that answers every
 * {@code ["EVENT", {...}]} at once with {@code ["OK", <id>, true, ""]} and records when each event id first arrived.
 * It checks no signatures and stores nothing else, so what the benchmark measures is the scheduler in front of it.
 *
 * <p>One platform thread per connection reads, records and answers; answers are flushed when no further input is
 * waiting, so a burst of publishes costs a few socket writes, not one per {@code OK}.
 */
public final class LoopbackRelay implements AutoCloseable {
    private static final String WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    private static final byte[] EVENT_PREFIX = "[\"EVENT\",{\"id\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final int ID_LENGTH = 64;
    /** Largest message accepted; far above a 256 KiB event. */
    private static final int MAX_MESSAGE_BYTES = 1 << 20;

    private final ServerSocket server;
    private final WallClock clock;
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final AtomicLong unexpected = new AtomicLong();
    private volatile Recording recording = new Recording();

    private LoopbackRelay(ServerSocket server, WallClock clock) {
        this.server = server;
        this.clock = clock;
        Thread.ofPlatform().name("loopback-relay-accept").daemon().start(this::acceptLoop);
    }

    /**
     * Listens on a free port of 127.0.0.1.
     *
     * @param clock the wall clock receipts are stamped with (the database's host clock, so due times compare)
     * @throws IllegalStateException when no port can be bound
     */
    public static LoopbackRelay start(WallClock clock) {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 64);
            return new LoopbackRelay(server, clock);
        } catch (IOException e) {
            throw new IllegalStateException("the loopback relay cannot listen on 127.0.0.1: " + e.getMessage(), e);
        }
    }

    /** {@code ws://127.0.0.1:<port>}. */
    public URI url() {
        return URI.create("ws://127.0.0.1:" + server.getLocalPort());
    }

    /** Starts a new recording; receipts from now on go to it (and no longer to the previous one). */
    Recording record() {
        Recording fresh = new Recording();
        recording = fresh;
        return fresh;
    }

    /** Client messages that were not an {@code EVENT} this relay could read (answered with a {@code NOTICE}). */
    long unexpectedMessages() {
        return unexpected.get();
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // Closing a listening socket only fails if it is already closed.
        }
        for (Socket socket : connections) {
            try {
                socket.close();
            } catch (IOException e) {
                // Already closed by the peer.
            }
        }
    }

    /** When each event id arrived, between {@link #record()} calls. */
    static final class Recording {
        private final Map<String, Receipt> receipts = new ConcurrentHashMap<>();
        private final AtomicLong events = new AtomicLong();

        /** Records an {@code EVENT} for {@code id} that arrived at {@code epochNanos}. */
        void received(String id, long epochNanos) {
            events.incrementAndGet();
            receipts.merge(id, new Receipt(epochNanos, 1), (first, again) -> new Receipt(first.firstNanos(),
                    first.count() + 1));
        }

        /** {@code EVENT} messages received, duplicates included. */
        long events() {
            return events.get();
        }

        /** Distinct event ids received. */
        int distinct() {
            return receipts.size();
        }

        /** When {@code id} first arrived, epoch nanoseconds, or -1 if it never did. */
        long firstArrival(String id) {
            Receipt receipt = receipts.get(id);
            return receipt == null ? -1 : receipt.firstNanos();
        }

        /** Every id received with its receipt (a copy). */
        Map<String, Receipt> receipts() {
            return new HashMap<>(receipts);
        }
    }

    /**
     * One event id's arrivals.
     *
     * @param firstNanos when it first arrived, epoch nanoseconds on the relay's wall clock
     * @param count      how many times it arrived
     */
    record Receipt(long firstNanos, int count) {
        Receipt {
            if (count < 1) {
                throw new IllegalArgumentException("a receipt counts at least one arrival, got " + count);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.add(socket);
                Thread.ofPlatform().name("loopback-relay-" + socket.getPort()).daemon().start(() -> serve(socket));
            } catch (IOException e) {
                if (!server.isClosed()) {
                    System.err.println("loopback relay: accept failed: " + e);
                }
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
            if (!handshake(in, out)) {
                return;
            }
            ByteArrayOutputStream fragments = new ByteArrayOutputStream();
            int fragmentedOpcode = -1;
            while (true) {
                Frame frame = Frame.read(in);
                switch (frame.opcode()) {
                    case Frame.CONTINUATION -> {
                        if (fragmentedOpcode < 0) {
                            throw new IOException("continuation frame without a message to continue");
                        }
                        append(fragments, frame.payload());
                        if (frame.fin()) {
                            onMessage(fragmentedOpcode, fragments.toByteArray(), out);
                            fragments.reset();
                            fragmentedOpcode = -1;
                        }
                    }
                    case Frame.TEXT, Frame.BINARY -> {
                        if (frame.fin()) {
                            onMessage(frame.opcode(), frame.payload(), out);
                        } else {
                            fragmentedOpcode = frame.opcode();
                            append(fragments, frame.payload());
                        }
                    }
                    case Frame.CLOSE -> {
                        byte[] code = frame.payload().length >= 2
                                ? new byte[] {frame.payload()[0], frame.payload()[1]} : new byte[0];
                        Frame.write(out, Frame.CLOSE, code);
                        out.flush();
                        return;
                    }
                    case Frame.PING -> Frame.write(out, Frame.PONG, frame.payload());
                    case Frame.PONG -> {
                        // Unsolicited pongs need no answer.
                    }
                    default -> throw new IOException("unknown WebSocket opcode " + frame.opcode());
                }
                if (in.available() == 0) {
                    out.flush();
                }
            }
        } catch (EOFException | SocketException e) {
            // The client went away or the relay is closing: nothing to answer.
        } catch (IOException e) {
            System.err.println("loopback relay: connection from port " + socket.getPort() + " failed: " + e);
        } finally {
            connections.remove(socket);
        }
    }

    private static void append(ByteArrayOutputStream fragments, byte[] payload) throws IOException {
        if (fragments.size() + payload.length > MAX_MESSAGE_BYTES) {
            throw new IOException("message longer than " + MAX_MESSAGE_BYTES + " bytes");
        }
        fragments.write(payload);
    }

    private void onMessage(int opcode, byte[] message, OutputStream out) throws IOException {
        String id = opcode == Frame.TEXT ? eventIdOf(message) : null;
        if (id == null) {
            unexpected.incrementAndGet();
            Frame.write(out, Frame.TEXT, "[\"NOTICE\",\"this relay only answers EVENT\"]"
                    .getBytes(StandardCharsets.US_ASCII));
            return;
        }
        Instant now = clock.now();
        recording.received(id, now.getEpochSecond() * 1_000_000_000L + now.getNano());
        Frame.write(out, Frame.TEXT, ("[\"OK\",\"" + id + "\",true,\"\"]").getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The event id of an {@code ["EVENT",{"id":"<64 hex>",...}]} message as the sidecar's relay client writes it
     * (compact NIP-01 JSON, {@code id} first), or null for anything else.
     */
    static String eventIdOf(byte[] message) {
        int idEnd = EVENT_PREFIX.length + ID_LENGTH;
        if (message.length < idEnd + 2) {
            return null;
        }
        for (int i = 0; i < EVENT_PREFIX.length; i++) {
            if (message[i] != EVENT_PREFIX[i]) {
                return null;
            }
        }
        for (int i = EVENT_PREFIX.length; i < idEnd; i++) {
            byte b = message[i];
            if (!(b >= '0' && b <= '9' || b >= 'a' && b <= 'f')) {
                return null;
            }
        }
        if (message[idEnd] != '"' || message[message.length - 1] != ']') {
            return null;
        }
        return new String(message, EVENT_PREFIX.length, ID_LENGTH, StandardCharsets.US_ASCII);
    }

    /** Reads the HTTP upgrade request and answers 101, or 400 and false when it is not a WebSocket handshake. */
    private static boolean handshake(InputStream in, OutputStream out) throws IOException {
        Map<String, String> headers = new HashMap<>();
        String requestLine = readLine(in);
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
            }
        }
        String key = headers.get("sec-websocket-key");
        if (!requestLine.startsWith("GET ") || key == null
                || !"websocket".equalsIgnoreCase(headers.getOrDefault("upgrade", ""))) {
            out.write(("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return false;
        }
        out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + acceptKey(key) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return true;
    }

    /** RFC 6455 §4.2.2: base64(SHA-1(key + GUID)). */
    static String acceptKey(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1")
                    .digest((key + WEBSOCKET_GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("connection closed during the handshake");
            }
            if (c == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            if (line.length() > 8192) {
                throw new IOException("handshake line longer than 8 KiB");
            }
            line.append((char) c);
        }
    }

    /** One WebSocket frame (RFC 6455 §5.2), payload unmasked. */
    record Frame(boolean fin, int opcode, byte[] payload) {
        static final int CONTINUATION = 0x0;
        static final int TEXT = 0x1;
        static final int BINARY = 0x2;
        static final int CLOSE = 0x8;
        static final int PING = 0x9;
        static final int PONG = 0xA;

        /** Reads one frame; client frames must be masked (§5.1). */
        static Frame read(InputStream in) throws IOException {
            int first = readByte(in);
            int second = readByte(in);
            boolean fin = (first & 0x80) != 0;
            int opcode = first & 0x0F;
            if ((second & 0x80) == 0) {
                throw new IOException("client frame is not masked");
            }
            long length = second & 0x7F;
            if (length == 126) {
                length = (readByte(in) << 8) | readByte(in);
            } else if (length == 127) {
                length = 0;
                for (int i = 0; i < 8; i++) {
                    length = (length << 8) | readByte(in);
                }
            }
            if (length > MAX_MESSAGE_BYTES) {
                throw new IOException("frame longer than " + MAX_MESSAGE_BYTES + " bytes: " + length);
            }
            byte[] mask = in.readNBytes(4);
            byte[] payload = in.readNBytes((int) length);
            if (mask.length < 4 || payload.length < length) {
                throw new EOFException("connection closed inside a frame");
            }
            for (int i = 0; i < payload.length; i++) {
                payload[i] ^= mask[i & 3];
            }
            return new Frame(fin, opcode, payload);
        }

        /** Writes one unmasked, final frame (server to client). */
        static void write(OutputStream out, int opcode, byte[] payload) throws IOException {
            out.write(0x80 | opcode);
            if (payload.length < 126) {
                out.write(payload.length);
            } else if (payload.length <= 0xFFFF) {
                out.write(126);
                out.write(payload.length >>> 8);
                out.write(payload.length & 0xFF);
            } else {
                out.write(127);
                for (int shift = 56; shift >= 0; shift -= 8) {
                    out.write((int) (((long) payload.length >>> shift) & 0xFF));
                }
            }
            out.write(payload);
        }

        private static int readByte(InputStream in) throws IOException {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed");
            }
            return b;
        }
    }
}

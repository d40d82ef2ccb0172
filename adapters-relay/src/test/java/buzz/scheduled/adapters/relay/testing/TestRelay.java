package buzz.scheduled.adapters.relay.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The project's real test relay ({@code adapters-relay/src/test/relay/relay.js}, on {@code @nostr-relay} 0.0.40
 * and {@code ws}) as a child process on a loopback port. It answers {@code EVENT} with {@code OK} (and
 * {@code duplicate:} for a repeat), serves {@code REQ}, and optionally requires NIP-42 AUTH.
 *
 * <pre>{@code
 * try (TestRelay relay = TestRelay.start()) {             // or TestRelay.builder().auth(true).start()
 *     ... publish to relay.url() ...
 *     assertThat(relay.event(id)).contains(eventJson);     // read back over REQ
 *     relay.stop();  ...  relay.restart();                // down for a while, back on the same port
 * }
 * }</pre>
 *
 * <p>Events live in a temporary file for the lifetime of this object, so a restarted relay still knows (and
 * answers {@code duplicate:} for) what it stored before. When the relay's {@code node_modules} is missing,
 * {@code npm ci} runs once per JVM. The relay directory is found from the working directory (this module or a
 * sibling module), or given by the system property {@code buzz.test.relay.dir} or the environment variable
 * {@code BUZZ_TEST_RELAY_DIR}. {@code node} and {@code npm} must be on the {@code PATH}.
 */
public final class TestRelay implements AutoCloseable {
    // Only bounds a hang: a relay seeded with hundreds of signed group events takes about a minute to start on a
    // loaded 2-core machine (56-62 s measured), though seconds on a quiet one.
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration NPM_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(10);
    private static final Object NPM_LOCK = new Object();
    private static final AtomicInteger SUBSCRIPTIONS = new AtomicInteger();

    private final Path directory;
    private final boolean auth;
    private final List<Path> plugins;
    private final Map<String, String> environment;
    private final List<String> arguments;
    private final Path data;
    private final Path receivedLog;
    private final StringBuffer log = new StringBuffer();
    private Process process;
    private int port;

    private TestRelay(Builder builder) {
        this.directory = relayDirectory();
        this.auth = builder.auth;
        this.plugins = List.copyOf(builder.plugins);
        this.environment = Map.copyOf(builder.environment);
        this.arguments = List.copyOf(builder.arguments);
        try {
            this.data = Files.createTempFile("test-relay-", ".jsonl");
            this.receivedLog = builder.logReceived ? Files.createTempFile("test-relay-received-", ".jsonl") : null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the test relay's data file", e);
        }
    }

    /** Starts a relay without AUTH on a free port and waits until it listens. */
    public static TestRelay start() {
        return builder().start();
    }

    /** Options for a relay: AUTH, plugins, environment. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options for {@link TestRelay}. */
    public static final class Builder {
        private boolean auth;
        private boolean logReceived;
        private final List<Path> plugins = new ArrayList<>();
        private final List<String> arguments = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();

        private Builder() {
        }

        /** NIP-42: send a challenge on connect and answer EVENT {@code auth-required:} until AUTH succeeded. */
        public Builder auth(boolean required) {
            this.auth = required;
            return this;
        }

        /**
         * Registers a {@code @nostr-relay} plugin module (CommonJS file exporting a plugin or a factory); a
         * relative path is resolved against the relay directory, e.g. {@code plugins/restricted-pubkeys.js}.
         */
        public Builder plugin(String file) {
            this.plugins.add(Path.of(file));
            return this;
        }

        /**
         * Adds command-line options of {@code relay.js}: the modes that recreate real relays' behaviour, e.g.
         * {@code mode("--max-message-length", "131072")} or {@code mode("--lose-first-ok")} (see relay.js).
         */
        public Builder mode(String... options) {
            this.arguments.addAll(List.of(options));
            return this;
        }

        /** Records every {@code EVENT} message the relay reads, for {@link #receivedEvents()}. */
        public Builder logReceived() {
            this.logReceived = true;
            return this;
        }

        /** Sets an environment variable for the relay process (plugins read their settings from it). */
        public Builder env(String name, String value) {
            this.environment.put(name, value);
            return this;
        }

        /** Starts the relay on a free port and waits until it listens. */
        public TestRelay start() {
            TestRelay relay = new TestRelay(this);
            relay.launch(0);
            return relay;
        }
    }

    /** {@code ws://127.0.0.1:<port>}. */
    public URI url() {
        return URI.create("ws://127.0.0.1:" + port);
    }

    /** The port; stays the same across {@link #stop()} and {@link #restart()}. */
    public int port() {
        return port;
    }

    /** Whether the relay requires NIP-42 AUTH before it takes events. */
    public boolean authRequired() {
        return auth;
    }

    /** Whether the relay process is running. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the relay process (its connections drop); the port is free until {@link #restart()}. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        process = null;
    }

    /** Starts the relay again on the same port, with the events it had stored; waits until it listens. */
    public synchronized void restart() {
        stop();
        launch(port);
    }

    /**
     * Reads events back with {@code ["REQ", <sub>, <filter>]}, each exactly as the relay sent it.
     *
     * @param filterJson a NIP-01 filter object, e.g. {@code {"ids":["..."]}} or {@code {}} for everything
     * @return the events' JSON texts in the relay's order (newest first)
     */
    public List<String> events(String filterJson) {
        String subscription = "read-" + SUBSCRIPTIONS.incrementAndGet();
        String prefix = "[\"EVENT\",\"" + subscription + "\",";
        List<String> events = new ArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        WebSocket.Listener listener = new WebSocket.Listener() {
            private final StringBuilder partial = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    String text = partial.toString();
                    partial.setLength(0);
                    if (text.startsWith(prefix) && text.endsWith("]")) {
                        events.add(text.substring(prefix.length(), text.length() - 1));
                    } else if (text.startsWith("[\"EOSE\",\"" + subscription + "\"")) {
                        done.complete(null);
                    } else if (text.startsWith("[\"CLOSED\",\"" + subscription + "\"")) {
                        done.completeExceptionally(new IllegalStateException("relay refused the REQ: " + text));
                    }
                }
                webSocket.request(1);
                return null;
            }

            @Override
            public void onError(WebSocket webSocket, Throwable error) {
                done.completeExceptionally(error);
            }
        };
        try (HttpClient http = HttpClient.newHttpClient()) {
            WebSocket socket = http.newWebSocketBuilder().buildAsync(url(), listener)
                    .get(QUERY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            socket.sendText("[\"REQ\",\"" + subscription + "\"," + filterJson + "]", true)
                    .get(QUERY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            done.get(QUERY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(QUERY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return List.copyOf(events);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("REQ " + filterJson + " to the test relay at " + url() + " failed: " + e
                    + "\nrelay output:\n" + log, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading from the test relay", e);
        }
    }

    /** The stored event with this id (64 hex characters), exactly as the relay serves it. */
    public Optional<String> event(String id) {
        List<String> found = events("{\"ids\":[\"" + id + "\"]}");
        return found.isEmpty() ? Optional.empty() : Optional.of(found.getFirst());
    }

    /**
     * Whether the relay stored the event with this id, read from its data file rather than asked over a {@code REQ}
     * (for relays that do not serve unauthenticated reads).
     */
    public boolean stores(String id) {
        try {
            return Files.readAllLines(data).stream().anyMatch(line -> line.contains("\"id\":\"" + id + "\""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the relay's data file", e);
        }
    }

    /**
     * One {@code EVENT} message the relay read.
     *
     * @param id         the event id in it
     * @param atMillis   when the relay read it, Unix milliseconds
     * @param bytes      its length in bytes
     * @param connection which connection (1 for the first) it came on
     */
    public record ReceivedEvent(String id, long atMillis, long bytes, int connection) {
    }

    /** Every {@code EVENT} message read so far, in order (needs {@link Builder#logReceived()}). */
    public List<ReceivedEvent> receivedEvents() {
        if (receivedLog == null) {
            throw new IllegalStateException("start the relay with logReceived() to see what it read");
        }
        try {
            List<ReceivedEvent> events = new ArrayList<>();
            for (String line : Files.readAllLines(receivedLog)) {
                if (line.isBlank()) {
                    continue;
                }
                com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(line);
                events.add(new ReceivedEvent(json.path("id").asText(), json.path("at").asLong(),
                        json.path("bytes").asLong(), json.path("connection").asInt()));
            }
            return events;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the relay's log of received events", e);
        }
    }

    /** What the relay printed so far (stdout and stderr), for failure messages. */
    public String output() {
        return log.toString();
    }

    /** Stops the relay and deletes its stored events. */
    @Override
    public void close() {
        stop();
        try {
            Files.deleteIfExists(data);
            if (receivedLog != null) {
                Files.deleteIfExists(receivedLog);
            }
        } catch (IOException ignored) {
            // a temp file; the OS cleans up
        }
    }

    private synchronized void launch(int requestedPort) {
        installPackages(directory);
        List<String> command = new ArrayList<>(List.of(
                "node", "relay.js", "--port", Integer.toString(requestedPort), "--data", data.toString()));
        if (auth) {
            command.add("--auth");
        }
        for (Path plugin : plugins) {
            command.add("--plugin");
            command.add(directory.resolve(plugin).toString());
        }
        command.addAll(arguments);
        if (receivedLog != null) {
            command.add("--log-received");
            command.add(receivedLog.toString());
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        builder.environment().putAll(environment);
        CompletableFuture<Integer> ready = new CompletableFuture<>();
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run node (Node 20+ must be on the PATH): " + e.getMessage(), e);
        }
        drain(process.getInputStream(), ready);
        drain(process.getErrorStream(), null);
        process.onExit().thenRun(() -> ready.completeExceptionally(
                new IllegalStateException("test relay exited before it was ready")));
        try {
            port = ready.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("test relay did not start on port " + requestedPort + " within "
                    + READY_TIMEOUT + ": " + e.getMessage() + "\nrelay output:\n" + log, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while starting the test relay", e);
        }
    }

    private void drain(InputStream stream, CompletableFuture<Integer> ready) {
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    log.append(line).append('\n');
                    if (ready != null && line.startsWith("READY ")) {
                        ready.complete(readyPort(line));
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "test-relay-output");
        reader.setDaemon(true);
        reader.start();
    }

    private static int readyPort(String line) {
        for (String part : line.split(" ")) {
            if (part.startsWith("port=")) {
                return Integer.parseInt(part.substring("port=".length()));
            }
        }
        throw new IllegalStateException("readiness line without port=: " + line);
    }

    /** Runs {@code npm ci} in the relay directory when its packages are not installed yet. */
    static void installPackages(Path directory) {
        installPackages(directory, "@nostr-relay/core", "ws");
    }

    /**
     * Runs {@code npm ci} (the committed lockfile) in {@code directory} once per JVM when one of {@code modules}
     * is missing from its {@code node_modules}; for every Node program the tests run (the relay, client harnesses).
     */
    public static void installPackages(Path directory, String... modules) {
        synchronized (NPM_LOCK) {
            if (java.util.Arrays.stream(modules).allMatch(m -> Files.isDirectory(directory.resolve("node_modules/" + m)))) {
                return;
            }
            ProcessBuilder builder = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
                    .directory(directory.toFile())
                    .redirectErrorStream(true);
            try {
                Process npm = builder.start();
                npm.getOutputStream().close();
                CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
                    try (InputStream in = npm.getInputStream()) {
                        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    } catch (IOException e) {
                        return "(output unreadable: " + e.getMessage() + ")";
                    }
                });
                if (!npm.waitFor(NPM_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    npm.destroyForcibly();
                    throw new IllegalStateException("npm ci in " + directory + " did not finish within " + NPM_TIMEOUT);
                }
                if (npm.exitValue() != 0) {
                    throw new IllegalStateException("npm ci in " + directory + " failed with exit code "
                            + npm.exitValue() + "; the Node program cannot run without its packages.\n"
                            + output.join());
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot run npm (Node 20+ with npm must be on the PATH) to install "
                        + "the packages in " + directory + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while running npm ci in " + directory, e);
            }
        }
    }

    /** Where {@code relay.js} lives; see the class documentation. */
    static Path relayDirectory() {
        String configured = System.getProperty("buzz.test.relay.dir", System.getenv("BUZZ_TEST_RELAY_DIR"));
        List<Path> candidates = new ArrayList<>();
        if (configured != null && !configured.isBlank()) {
            candidates.add(Path.of(configured));
        } else {
            Path here = Path.of("").toAbsolutePath();
            candidates.add(here.resolve("src/test/relay"));
            candidates.add(here.resolve("adapters-relay/src/test/relay"));
            if (here.getParent() != null) {
                candidates.add(here.getParent().resolve("adapters-relay/src/test/relay"));
            }
        }
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate.resolve("relay.js"))) {
                return candidate.toAbsolutePath().normalize();
            }
        }
        throw new IllegalStateException("cannot find the test relay (relay.js) in " + candidates
                + "; set -Dbuzz.test.relay.dir or BUZZ_TEST_RELAY_DIR to adapters-relay/src/test/relay");
    }
}

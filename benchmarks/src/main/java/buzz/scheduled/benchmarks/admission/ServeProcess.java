package buzz.scheduled.benchmarks.admission;

import buzz.scheduled.bootstrap.Main;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The sidecar as an operator runs it: {@code java -jar buzz-scheduled-delivery.jar serve} (or this class path's
 * {@link Main} when no jar is given) in its own JVM, with an environment made only of what the benchmark passes and
 * its output in a log file. Either on its embedded PostgreSQL under a fresh {@code BUZZ_DATA_DIR}, or on a
 * {@code DATABASE_URL} the caller names. {@link #close()} sends SIGTERM (the sidecar's own graceful shutdown, which
 * also stops its embedded database), waits, and removes the data directory it made.
 */
public final class ServeProcess implements AutoCloseable {
    /** Long enough for four JVMs starting side by side on a busy two-core machine. */
    private static final Duration START_WAIT = Duration.ofMinutes(5);
    private static final Duration STOP_WAIT = Duration.ofSeconds(60);

    private final Process process;
    private final URI baseUrl;
    private final Path work;
    private final Optional<Path> dataDirectory;

    private ServeProcess(Process process, URI baseUrl, Path work, Optional<Path> dataDirectory) {
        this.process = process;
        this.baseUrl = baseUrl;
        this.work = work;
        this.dataDirectory = dataDirectory;
    }

    /**
     * Starts {@code serve} on a free loopback port with scheduled messages on and {@code PUBLIC_BASE_URL} set to that
     * address, then waits until {@code /readyz} answers 200 (at most five minutes).
     *
     * @param jar         the operator's jar to run, or empty for this class path's {@link Main}
     * @param environment further variables (limits, {@code RELAY_URL}, {@code DATABASE_URL}...); without
     *                    {@code DATABASE_URL} the sidecar runs its embedded PostgreSQL under a fresh directory
     * @param jvmOptions  options for the child JVM (e.g. a JFR recording), before the class or jar
     * @throws IllegalStateException when it exits or is not ready in time (with its log's tail)
     */
    public static ServeProcess start(Optional<Path> jar, Map<String, String> environment, List<String> jvmOptions) {
        Path work;
        try {
            work = Files.createTempDirectory("buzz-bench-serve-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int port = freePort();
        URI baseUrl = URI.create("http://127.0.0.1:" + port);
        Map<String, String> env = new LinkedHashMap<>();
        env.put(SidecarConfig.BUZZ_SCHEDULED_MESSAGES, "on");
        env.put(SidecarConfig.HTTP_HOST, "127.0.0.1");
        env.put(SidecarConfig.HTTP_PORT, Integer.toString(port));
        env.put(SidecarConfig.PUBLIC_BASE_URL, baseUrl.toString());
        env.put(SidecarConfig.BUZZ_LOG_LEVEL, "WARN");
        Optional<Path> data = Optional.empty();
        if (!environment.containsKey(SidecarConfig.DATABASE_URL)) {
            data = Optional.of(work.resolve("data"));
            env.put(SidecarConfig.BUZZ_DATA_DIR, data.get().toString());
        }
        env.putAll(environment);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(jvmOptions);
        if (jar.isPresent()) {
            command.addAll(List.of("-jar", jar.get().toString()));
        } else {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        }
        command.add("serve");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("serve.log").toFile());
        SidecarConfig.VARIABLES.forEach(builder.environment()::remove);
        builder.environment().putAll(env);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            deleteTree(work);
            throw new UncheckedIOException("could not start serve: " + e.getMessage(), e);
        }
        ServeProcess serve = new ServeProcess(process, baseUrl, work, data);
        try {
            serve.awaitReady();
        } catch (RuntimeException e) {
            serve.close();
            throw e;
        }
        return serve;
    }

    /** {@code http://127.0.0.1:<port>}: where it listens, and its {@code PUBLIC_BASE_URL}. */
    public URI baseUrl() {
        return baseUrl;
    }

    /** The serve JVM's process id. */
    public long pid() {
        return process.pid();
    }

    /** CPU time the serve JVM has used so far (all its threads: HTTP, admission, delivery, JIT, GC), nanoseconds. */
    public long jvmCpuNanos() {
        return ProcessCpu.nanos(process.pid(), false);
    }

    /** The embedded database's directory ({@code BUZZ_DATA_DIR}), when it runs one. */
    public Optional<Path> dataDirectory() {
        return dataDirectory;
    }

    /** The last {@code lines} lines of its output. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(work.resolve("serve.log"));
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        HttpRequest ready = HttpRequest.newBuilder(URI.create(baseUrl + "/readyz")).timeout(Duration.ofSeconds(2))
                .build();
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("serve exited with status " + process.exitValue() + ":\n"
                            + logTail(40));
                }
                try {
                    if (client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                } catch (IOException notYet) {
                    // not listening yet
                }
                Thread.sleep(200); // polling a child process's start-up; nothing to wait on instead
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for serve", e);
        }
        throw new IllegalStateException("serve was not ready within " + START_WAIT + ":\n" + logTail(40));
    }

    /** SIGTERM, then waits for the graceful shutdown (SIGKILL after a minute); removes what it made. Idempotent. */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(STOP_WAIT.toSeconds(), TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            deleteTree(work);
        }
    }

    /** A free port on 127.0.0.1. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The embedded server's postmaster pid (first line of {@code postmaster.pid}). */
    static long postmasterPid(Path dataDirectory) {
        try (Stream<Path> files = Files.find(dataDirectory, 3,
                (path, attributes) -> path.getFileName().toString().equals("postmaster.pid"))) {
            Path pidFile = files.findFirst().orElseThrow(() -> new IllegalStateException(
                    "no postmaster.pid under " + dataDirectory + ": is the embedded database running?"));
            return Long.parseLong(Files.readAllLines(pidFile).getFirst().strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A superuser JDBC URL of the embedded database under {@code dataDirectory} (its port and the superuser's
     * password from the files the sidecar keeps there), for reading statistics.
     */
    static String superuserJdbcUrl(Path dataDirectory) {
        try {
            String application = EmbeddedDatabase.jdbcUrlOf(dataDirectory);
            String password = Files.readAllLines(dataDirectory.resolve("embedded-postgres.password")).stream()
                    .filter(line -> line.startsWith("postgres="))
                    .map(line -> line.substring("postgres=".length()).strip())
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no superuser password under " + dataDirectory));
            return application.substring(0, application.indexOf('?')) + "?user=postgres&password=" + password;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            System.out.println("could not delete " + root + ": " + e.getMessage());
        }
    }
}

package buzz.scheduled.bootstrap;

import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.bootstrap.cli.ClientCommands;
import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.database.EmbeddedDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs {@code serve} (and one-shot commands of the jar, such as the client commands) as an operator does: a separate
 * JVM (the test class path's {@link Main}, or the shaded jar named by the system property {@code buzz.serve.jar})
 * with an environment made only of what a test passes.
 * {@link #close()} stops whatever is still running; registered as a test's extension ({@code @RegisterExtension}) it
 * does so after each test.
 */
final class ServeProcesses implements AutoCloseable, AfterEachCallback {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private final List<Process> started = new ArrayList<>();

    /**
     * Starts {@code serve} with {@code environment} (none of the variables of README.md "Configuration" inherited),
     * output to {@code log}.
     */
    Process start(Map<String, String> environment, Path log) throws IOException {
        ProcessBuilder builder = jar(environment, List.of("serve")).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        return track(builder.start());
    }

    /**
     * Starts {@code serve} with scheduled messages on, the embedded database under {@code work/var}, publishing to
     * {@code relay}, its output in {@code work/serve.log}; returns its HTTP port once {@code /healthz} answers.
     */
    int startServing(Path work, URI relay) throws Exception {
        int port = freePort();
        Path log = work.resolve("serve.log");
        Process serve = start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(), "HTTP_PORT",
                Integer.toString(port), "BUZZ_SCHEDULED_MESSAGES", "on", "RELAY_URL", relay.toString()), log);
        awaitHealthy(serve, port, log);
        return port;
    }

    /** What a one-shot command of the jar did: its exit code, standard output and standard error. */
    record Completed(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    /**
     * Runs the jar with {@code args} (e.g. a client command) in its own JVM with {@code environment}, {@code stdin}
     * as its standard input, and waits at most {@code limit} for it to exit.
     */
    Completed run(Map<String, String> environment, List<String> args, String stdin, Duration limit)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("jar-stdout-", ".txt");
        Path err = Files.createTempFile("jar-stderr-", ".txt");
        try {
            Process process = track(jar(environment, args).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .start());
            try (var input = process.getOutputStream()) {
                input.write(stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("java -jar ... " + String.join(" ", args) + " did not exit within " + limit
                        + "\nstderr so far:\n" + Files.readString(err));
            }
            return new Completed(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * The jar's {@link Main} with {@code args}: the test class path's, or the shaded jar named by
     * {@code buzz.serve.jar}; the environment holds none of the variables of README.md "Configuration" or the client's
     * unless given.
     */
    private static ProcessBuilder jar(Map<String, String> environment, List<String> args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String jar = System.getProperty("buzz.serve.jar", "");
        List<String> command = new ArrayList<>(jar.isBlank()
                ? List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName())
                : List.of(java, "-jar", jar));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> env = builder.environment();
        SidecarConfig.VARIABLES.forEach(env::remove);
        ClientCommands.VARIABLES.forEach(env::remove);
        env.putAll(environment);
        return builder;
    }

    private Process track(Process process) {
        synchronized (started) {
            started.add(process);
        }
        return process;
    }

    /** Polls {@code /healthz} until it answers 200; returns the milliseconds since the process started. */
    static long awaitHealthy(Process process, int port, Path log) throws Exception {
        return awaitHealthy(process, port, log, Duration.ofSeconds(90));
    }

    /** {@link #awaitHealthy(Process, int, Path)} with a time limit of its own (a serve that is slow by design). */
    static long awaitHealthy(Process process, int port, Path log, Duration limit) throws Exception {
        long launched = process.info().startInstant().map(i -> i.toEpochMilli()).orElseThrow();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                .timeout(Duration.ofSeconds(2)).build();
        try {
            Poll.until("serve to answer /healthz", limit, () -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("serve exited with " + process.exitValue() + ":\n"
                            + Files.readString(log));
                }
                try {
                    return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
                } catch (IOException notYet) {
                    return false; // not listening yet
                }
            }, healthy -> healthy);
        } catch (AssertionError timedOut) {
            throw new AssertionError(timedOut.getMessage() + ":\n" + Files.readString(log), timedOut);
        }
        return System.currentTimeMillis() - launched;
    }

    /** The JDBC URL of the embedded PostgreSQL a {@code serve} runs under {@code dataDir}. */
    static String embeddedJdbcUrl(Path dataDir) throws IOException {
        return EmbeddedDatabase.jdbcUrlOf(dataDir);
    }

    /** What {@code serve} wrote to {@code log} so far (empty when the file is not there yet). */
    static String output(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    /** How often {@code needle} occurs in {@code text}. */
    static int occurrences(String text, String needle) {
        int count = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length())) {
            count++;
        }
        return count;
    }

    /** {@code GET /metrics} of a serve listening on {@code port}. */
    static String metrics(int port) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/metrics")).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /metrics answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /** A free loopback port. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    /** Runs {@code statements} in order over one connection to {@code jdbcUrl}. */
    static void execute(String jdbcUrl, String... statements) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
             Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /** The first column of the first row of {@code sql}. */
    static String query(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        close();
    }

    @Override
    public void close() throws InterruptedException {
        List<Process> running;
        synchronized (started) {
            running = List.copyOf(started);
        }
        for (Process process : running) {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }
}

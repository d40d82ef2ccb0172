package buzz.scheduled.bootstrap;

import buzz.scheduled.application.testing.Poll;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PgBouncer (the Debian package {@code pgbouncer}, which {@code .ci/run} installs) run by a test: its own
 * process with a generated ini on a free loopback port, in {@code pool_mode = transaction}, in front of one
 * PostgreSQL server, logging in there as one user ({@code auth_type = any}). Run as root it drops to {@code nobody}
 * (PgBouncer refuses to run as root), so its files live in a directory of their own that others may read.
 * {@link #close()} stops it and removes the files.
 */
final class PgBouncer implements AutoCloseable {

    private static final Duration READY_WAIT = Duration.ofSeconds(20);

    private final Process process;
    private final Path directory;
    private final int port;
    private final String adminUser;

    private PgBouncer(Process process, Path directory, int port, String adminUser) {
        this.process = process;
        this.directory = directory;
        this.port = port;
        this.adminUser = adminUser;
    }

    /**
     * Starts PgBouncer in transaction mode in front of {@code host:serverPort}, connecting there as {@code user}
     * (with {@code password}, when the server needs one), and waits until it accepts connections.
     *
     * @throws IllegalStateException when the {@code pgbouncer} binary is missing or it does not come up
     */
    static PgBouncer transactionMode(String host, int serverPort, String user, Optional<String> password)
            throws IOException, InterruptedException {
        Path binary = Stream.of("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer").map(Path::of).filter(Files::isExecutable)
                .findFirst().orElseThrow(() -> new IllegalStateException("pgbouncer is not installed (apt-get install"
                        + " pgbouncer; .ci/run does it)"));
        Path directory = Files.createTempDirectory("buzz-pgbouncer-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        int port = ServeProcesses.freePort();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("listen_addr", "127.0.0.1");
        settings.put("listen_port", Integer.toString(port));
        settings.put("unix_socket_dir", "");
        settings.put("auth_type", "any");
        settings.put("pool_mode", "transaction");
        settings.put("max_client_conn", "200");
        settings.put("default_pool_size", "20");
        settings.put("admin_users", user);
        StringBuilder ini = new StringBuilder("[databases]\n* = host=").append(host).append(" port=").append(serverPort)
                .append(" user=").append(user);
        password.ifPresent(p -> ini.append(" password=").append(p));
        ini.append("\n\n[pgbouncer]\n");
        settings.forEach((key, value) -> ini.append(key).append(" = ").append(value).append('\n'));
        Path config = directory.resolve("pgbouncer.ini");
        Files.writeString(config, ini.toString());
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r--r--"));
        Path log = directory.resolve("pgbouncer.log");
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("-u", "nobody"));
        }
        command.add(config.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PgBouncer bouncer = new PgBouncer(process, directory, port, user);
        try {
            Poll.until("pgbouncer to accept connections", READY_WAIT, () -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("pgbouncer exited with " + process.exitValue());
                }
                return bouncer.accepts();
            }, accepting -> accepting);
        } catch (RuntimeException | AssertionError e) {
            String output = Files.exists(log) ? Files.readString(log) : "";
            bouncer.close();
            throw new IllegalStateException("pgbouncer did not start on port " + port + ":\n" + output, e);
        }
        return bouncer;
    }

    /** The port PgBouncer listens on (loopback). */
    int port() {
        return port;
    }

    /** A {@code postgres://} URL of {@code database} through PgBouncer. */
    String url(String database, String user) {
        return "postgres://" + user + "@127.0.0.1:" + port + "/" + database;
    }

    /**
     * PgBouncer's {@code SHOW CLIENTS} from its admin console (through {@code psql}, since the console speaks only the
     * simple query protocol and refuses the {@code SET} PgJDBC sends at connect): one map per client connection,
     * column name to value (e.g. {@code database}, {@code application_name}, {@code state}).
     */
    List<Map<String, String>> clients() throws IOException, InterruptedException {
        Process psql = new ProcessBuilder("psql", "-X", "-q", "-A", "-F", "\t", "-h", "127.0.0.1", "-p",
                Integer.toString(port), "-U", adminUser, "-d", "pgbouncer", "-c", "SHOW CLIENTS")
                .redirectErrorStream(true).start();
        String output = new String(psql.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!psql.waitFor(20, TimeUnit.SECONDS) || psql.exitValue() != 0) {
            throw new IllegalStateException("psql SHOW CLIENTS failed:\n" + output);
        }
        List<String> lines = output.lines().filter(line -> !line.isBlank() && !line.matches("\\(\\d+ rows?\\)"))
                .toList();
        List<String> columns = List.of(lines.get(0).split("\t", -1));
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] values = line.split("\t", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < columns.size() && i < values.length; i++) {
                row.put(columns.get(i), values[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    /** What PgBouncer wrote to its log. */
    String log() throws IOException {
        Path log = directory.resolve("pgbouncer.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(directory);
    }
}

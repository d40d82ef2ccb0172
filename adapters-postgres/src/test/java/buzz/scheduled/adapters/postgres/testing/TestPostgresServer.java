package buzz.scheduled.adapters.postgres.testing;

import buzz.scheduled.adapters.postgres.DatabaseUrl;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.Closeable;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.postgresql.Driver;

/**
 * The PostgreSQL server that scratch databases are made on, chosen once per JVM: {@code BUZZ_TEST_DATABASE_URL}
 * when set, else a Testcontainers PostgreSQL when Docker answers, else embedded PostgreSQL 17 binaries.
 * Closing it stops a server this JVM started; an external server is left alone.
 */
final class TestPostgresServer implements AutoCloseable {

    /** Environment variable naming an external server where tests may {@code CREATE DATABASE}. */
    static final String URL_VARIABLE = "BUZZ_TEST_DATABASE_URL";

    private static final System.Logger LOG = System.getLogger(TestPostgresServer.class.getName());

    private final String source;
    private final String host;
    private final int port;
    private final String adminDatabase;
    private final String user;
    private final Optional<String> password;
    private final Map<String, String> driverProperties;
    private final Closeable owned;

    private TestPostgresServer(String source, String host, int port, String adminDatabase, String user,
            Optional<String> password, Map<String, String> driverProperties, Closeable owned) {
        this.source = source;
        this.host = host;
        this.port = port;
        this.adminDatabase = adminDatabase;
        this.user = user;
        this.password = password;
        this.driverProperties = driverProperties;
        this.owned = owned;
    }

    static TestPostgresServer start() {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return fromUrl(url, URL_VARIABLE, null);
        }
        Optional<TestPostgresServer> container = Containers.startIfDockerAnswers();
        if (container.isPresent()) {
            return container.get();
        }
        return embedded();
    }

    private static TestPostgresServer fromUrl(String url, String source, Closeable owned) {
        DatabaseUrl parsed;
        try {
            parsed = DatabaseUrl.parse(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(source + " is not a usable PostgreSQL URL: " + e.getMessage(), e);
        }
        Properties props = Driver.parseURL(parsed.jdbcUrl(), new Properties());
        if (props == null) {
            throw new IllegalStateException(source + " is not a jdbc:postgresql URL the driver understands");
        }
        String host = props.getProperty("PGHOST", "localhost");
        if (host.contains(",")) {
            throw new IllegalStateException(source + " must name a single host, got " + host);
        }
        int port = Integer.parseInt(props.getProperty("PGPORT", "5432"));
        String adminDatabase = props.getProperty("PGDBNAME", "postgres");
        String user = parsed.user().orElse(props.getProperty("user", System.getProperty("user.name")));
        Optional<String> password = parsed.password().or(() -> Optional.ofNullable(props.getProperty("password")));
        Map<String, String> extra = new TreeMap<>();
        for (String name : props.stringPropertyNames()) {
            if (!name.startsWith("PG") && !name.equals("user") && !name.equals("password")) {
                extra.put(name, props.getProperty(name));
            }
        }
        TestPostgresServer server = new TestPostgresServer(source, host, port, adminDatabase, user, password, extra, owned);
        LOG.log(System.Logger.Level.INFO, "scratch databases on {0} ({1}:{2})", source, host, String.valueOf(port));
        return server;
    }

    private static TestPostgresServer embedded() {
        EmbeddedPostgres postgres;
        try {
            postgres = EmbeddedPostgres.builder().start();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("no PostgreSQL for tests: " + URL_VARIABLE + " is unset, Docker does not"
                    + " answer, and embedded PostgreSQL failed to start (" + e.getMessage() + "). Set "
                    + URL_VARIABLE + "=jdbc:postgresql://host:port/postgres?user=... to use a running server.", e);
        }
        return fromUrl(postgres.getJdbcUrl("postgres", "postgres"), "embedded PostgreSQL", postgres);
    }

    String source() {
        return source;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    String user() {
        return user;
    }

    Optional<String> password() {
        return password;
    }

    /** A self-contained JDBC URL of {@code database} on this server, credentials included in the query. */
    String jdbcUrl(String database) {
        StringBuilder url = new StringBuilder("jdbc:postgresql://").append(hostForUrl()).append(':').append(port)
                .append('/').append(database).append("?user=").append(encode(user));
        password.ifPresent(p -> url.append("&password=").append(encode(p)));
        driverProperties.forEach((k, v) -> url.append('&').append(encode(k)).append('=').append(encode(v)));
        return url.toString();
    }

    /** {@code database} on this server as a libpq-style URL. */
    String postgresUrl(String database) {
        StringBuilder url = new StringBuilder("postgres://").append(encode(user));
        password.ifPresent(p -> url.append(':').append(encode(p)));
        return url.append('@').append(hostForUrl()).append(':').append(port).append('/').append(database).toString();
    }

    void createDatabase(String name) throws SQLException {
        requireScratchName(name);
        try (Connection admin = DriverManager.getConnection(jdbcUrl(adminDatabase)); Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
    }

    void dropDatabase(String name) throws SQLException {
        requireScratchName(name);
        try (Connection admin = DriverManager.getConnection(jdbcUrl(adminDatabase)); Statement statement = admin.createStatement()) {
            // FORCE ends sessions a test left open (a leaked connection must not leave the database behind).
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    @Override
    public void close() throws IOException {
        if (owned != null) {
            owned.close();
        }
    }

    private String hostForUrl() {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static void requireScratchName(String name) {
        if (!name.matches("buzz_test_[0-9a-f]{16}")) {
            throw new IllegalArgumentException("not a scratch database name: " + name);
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Kept apart so that a classpath without Testcontainers only loses this option. */
    private static final class Containers {
        static Optional<TestPostgresServer> startIfDockerAnswers() {
            try {
                if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                    return Optional.empty();
                }
                var container = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:17-alpine");
                container.start();
                String url = container.getJdbcUrl() + (container.getJdbcUrl().contains("?") ? "&" : "?")
                        + "user=" + encode(container.getUsername()) + "&password=" + encode(container.getPassword());
                return Optional.of(fromUrl(url, "Testcontainers PostgreSQL", container::stop));
            } catch (LinkageError e) {
                return Optional.empty();
            }
        }
    }
}

package buzz.scheduled.bootstrap.config;

import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_DATA_DIR;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_DB_POOL_SIZE;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_DIRECT_DATABASE_URL;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_HTTP_BODY_TIMEOUT_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_HTTP_HEADER_TIMEOUT_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_HTTP_MAX_CONNECTIONS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_HTTP_MAX_CONNECTIONS_PER_IP;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_RELAY_AUTH_URL;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_RELAY_INFO_REFRESH_SECONDS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.DATABASE_URL;
import static buzz.scheduled.bootstrap.config.SidecarConfig.HTTP_HOST;
import static buzz.scheduled.bootstrap.config.SidecarConfig.HTTP_PORT;
import static buzz.scheduled.bootstrap.config.SidecarConfig.PUBLIC_BASE_URL;
import static buzz.scheduled.bootstrap.config.SidecarConfig.RELAY_URL;
import static buzz.scheduled.bootstrap.config.SidecarConfig.SIDECAR_SECRET_KEY_FILE;

import buzz.scheduled.adapters.http.ConnectionLimits;
import buzz.scheduled.bootstrap.config.SidecarConfig.Database;
import buzz.scheduled.bootstrap.config.SidecarConfig.Http;
import buzz.scheduled.bootstrap.config.SidecarConfig.Relay;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Reads where the sidecar's connections go (README.md "Configuration"): the database, the HTTP listener with its
 * connection limits, and the relay. Part of {@link SidecarConfig#fromEnvironment}.
 */
final class ConnectionConfigReader {
    private ConnectionConfigReader() {
    }

    /** {@code DATABASE_URL}, {@code BUZZ_DIRECT_DATABASE_URL} and {@code BUZZ_DB_POOL_SIZE}. */
    static Database database(EnvironmentReader env) {
        Optional<String> databaseUrl = env.text(DATABASE_URL);
        databaseUrl.ifPresent(url -> requirePostgresUrl(DATABASE_URL, url, " (unset it to use the embedded database"
                + " under " + BUZZ_DATA_DIR + ")"));
        Optional<String> directUrl = env.text(BUZZ_DIRECT_DATABASE_URL);
        directUrl.ifPresent(url -> requirePostgresUrl(BUZZ_DIRECT_DATABASE_URL, url, ""));
        if (directUrl.isPresent() && databaseUrl.isEmpty()) {
            throw new InvalidConfigurationException(BUZZ_DIRECT_DATABASE_URL, BUZZ_DIRECT_DATABASE_URL
                    + " is set but " + DATABASE_URL + " is not: the direct URL is the unpooled way to the database"
                    + " that " + DATABASE_URL + " names (the embedded database needs neither)");
        }
        int poolSize = (int) env.integer(BUZZ_DB_POOL_SIZE, 10, 2, 200, "connections");
        return new Database(databaseUrl, directUrl, poolSize);
    }

    /** {@code HTTP_HOST}, {@code HTTP_PORT}, {@code PUBLIC_BASE_URL} and the connection limits. */
    static Http http(EnvironmentReader env) {
        String host = env.text(HTTP_HOST, "127.0.0.1");
        int port = (int) env.integer(HTTP_PORT, 8088, 1, 65535, "TCP port");
        String hostInUrl = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        String baseText = env.text(PUBLIC_BASE_URL, "http://" + hostInUrl + ":" + port);
        URI publicBase = env.uri(PUBLIC_BASE_URL, baseText, Set.of("http", "https"), "an absolute http(s) URL");
        if (publicBase.getRawQuery() != null) {
            throw new InvalidConfigurationException(PUBLIC_BASE_URL, PUBLIC_BASE_URL
                    + " must not carry a ?query (it is a prefix that request paths are appended to), got '"
                    + baseText + "'");
        }
        String withoutSlash = baseText.endsWith("/") ? baseText.substring(0, baseText.length() - 1) : baseText;
        ConnectionLimits connections = connectionLimits(env);
        return new Http(host, port, URI.create(withoutSlash), connections);
    }

    /** {@code RELAY_URL}, {@code BUZZ_RELAY_AUTH_URL}, the key file (default under the data directory), the refresh. */
    static Relay relay(EnvironmentReader env, Path dataDirectory) {
        URI relayUrl = env.uri(RELAY_URL, env.text(RELAY_URL, "ws://127.0.0.1:7777"), Set.of("ws", "wss"),
                "a WebSocket URL");
        URI relayAuthUrl = env.text(BUZZ_RELAY_AUTH_URL)
                .map(url -> env.uri(BUZZ_RELAY_AUTH_URL, url, Set.of("ws", "wss"), "a WebSocket URL"))
                .orElse(relayUrl);
        Path keyFile = env.path(SIDECAR_SECRET_KEY_FILE, dataDirectory.resolve("sidecar.key"));
        Duration informationRefresh = env.seconds(BUZZ_RELAY_INFO_REFRESH_SECONDS, 300, 1, 86_400);
        return new Relay(relayUrl, relayAuthUrl, keyFile, informationRefresh);
    }

    private static void requirePostgresUrl(String variable, String url, String hint) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("postgres://") && !lower.startsWith("postgresql://")
                && !lower.startsWith("jdbc:postgresql:")) {
            throw new InvalidConfigurationException(variable, variable
                    + " must be postgres://user:pass@host:port/db or a jdbc:postgresql: URL" + hint);
        }
    }

    private static ConnectionLimits connectionLimits(EnvironmentReader env) {
        int max = (int) env.integer(BUZZ_HTTP_MAX_CONNECTIONS, ConnectionLimits.DEFAULT_MAX_CONNECTIONS, 1, 1_000_000,
                "connections");
        int perAddress = (int) env.integer(BUZZ_HTTP_MAX_CONNECTIONS_PER_IP,
                ConnectionLimits.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, 0, 1_000_000, "connections; 0: no cap");
        if (perAddress > max) {
            throw new InvalidConfigurationException(BUZZ_HTTP_MAX_CONNECTIONS_PER_IP, BUZZ_HTTP_MAX_CONNECTIONS_PER_IP
                    + " (" + perAddress + ") must not exceed " + BUZZ_HTTP_MAX_CONNECTIONS + " (" + max
                    + "); 0 switches the per-address cap off");
        }
        Duration header = env.seconds(BUZZ_HTTP_HEADER_TIMEOUT_SECONDS,
                ConnectionLimits.DEFAULT_HEADER_TIMEOUT.toSeconds(), 1, 3_600);
        Duration body = env.seconds(BUZZ_HTTP_BODY_TIMEOUT_SECONDS, ConnectionLimits.DEFAULT_BODY_TIMEOUT.toSeconds(),
                1, 3_600);
        return new ConnectionLimits(max, perAddress, header, body, ConnectionLimits.DEFAULT_IDLE_TIMEOUT);
    }
}

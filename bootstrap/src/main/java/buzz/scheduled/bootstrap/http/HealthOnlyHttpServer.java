package buzz.scheduled.bootstrap.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;

/**
 * A stand-in HTTP listener serving only {@code GET /healthz} (the process is up) and {@code GET /readyz} (the
 * database answers), on the JDK's built-in server. It keeps {@code serve} observable until the real API
 * (adapters-http) is wired in its place; every other path answers {@code 404}.
 */
public final class HealthOnlyHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;

    private HealthOnlyHttpServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Binds {@code host:port} and starts answering.
     *
     * @param database checked by {@code /readyz} with a 2-second connection validity test
     * @throws IOException when the address cannot be bound (for example, the port is taken)
     */
    public static HealthOnlyHttpServer start(String host, int port, DataSource database) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 50);
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (exchange) {
                String path = exchange.getRequestURI().getPath();
                if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                    answer(exchange, 405, "{\"error\":\"method_not_allowed\",\"message\":\"only GET is served here\"}");
                } else if (path.equals("/healthz")) {
                    answer(exchange, 200, "{\"status\":\"ok\"}");
                } else if (path.equals("/readyz")) {
                    boolean ready = databaseAnswers(database);
                    answer(exchange, ready ? 200 : 503, ready ? "{\"status\":\"ready\"}"
                            : "{\"error\":\"unavailable\",\"message\":\"the database does not answer\"}");
                } else {
                    answer(exchange, 404, "{\"error\":\"not_found\",\"message\":\"no route " + path.replace("\"", "")
                            + "\"}");
                }
            }
        });
        server.start();
        return new HealthOnlyHttpServer(server, executor);
    }

    /** The bound port (useful when 0 was asked for). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Stops accepting, gives open exchanges up to a second, and stops. */
    @Override
    public void close() {
        server.stop(1);
        executor.shutdownNow();
    }

    private static boolean databaseAnswers(DataSource database) {
        try (Connection connection = database.getConnection()) {
            return connection.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}

package buzz.scheduled.bootstrap.database;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL's TCP port (loopback only), remembered in {@value EmbeddedDatabase#STATE_FILE} so that
 * restarts are predictable. Logs as {@link EmbeddedDatabase}.
 */
final class EmbeddedPort {
    /** The key of the port in {@value EmbeddedDatabase#STATE_FILE}. */
    static final String PORT_KEY = "port";

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);

    private EmbeddedPort() {
    }

    /**
     * The remembered port, or a fresh free one (remembered from now on) when there is none or it is taken by
     * another program.
     */
    static int choosePort(Path stateFile) throws IOException {
        Properties state = new Properties();
        if (Files.exists(stateFile)) {
            try (InputStream in = Files.newInputStream(stateFile)) {
                state.load(in);
            }
        }
        String remembered = state.getProperty(PORT_KEY, "");
        if (remembered.matches("[0-9]{1,5}")) {
            int port = Integer.parseInt(remembered);
            if (port > 0 && port < 65_536 && portFree(port)) {
                return port;
            }
            LOG.warn("the remembered embedded PostgreSQL port {} is taken by another program; choosing another", port);
        } else if (!remembered.isEmpty()) {
            LOG.warn("{} names no usable port ('{}'); choosing one", stateFile, remembered);
        }
        int port;
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            port = socket.getLocalPort();
        }
        state.setProperty(PORT_KEY, Integer.toString(port));
        Path temporary = stateFile.resolveSibling(stateFile.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(temporary)) {
            state.store(out, "embedded PostgreSQL of buzz-scheduled-delivery; delete to choose a new port");
        }
        Files.move(temporary, stateFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return port;
    }

    private static boolean portFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}

package buzz.scheduled.adapters.relay.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestRelayTest {

    @Test
    void stopThenRestart_listensOnTheSamePortAgain() {
        try (TestRelay relay = TestRelay.start()) {
            int port = relay.port();
            assertThat(relay.url().toString()).isEqualTo("ws://127.0.0.1:" + port);
            assertThat(relay.output()).contains("READY port=" + port);

            relay.stop();
            assertThat(relay.isRunning()).isFalse();
            assertThatThrownBy(() -> new Socket().connect(new InetSocketAddress("127.0.0.1", port), 2_000))
                    .isInstanceOf(ConnectException.class);

            relay.restart();
            assertThat(relay.isRunning()).isTrue();
            assertThat(relay.port()).isEqualTo(port);
            assertThat(relay.events("{}")).isEmpty();
        }
    }

    @Test
    void builderAuth_relayAnnouncesAuth() {
        try (TestRelay relay = TestRelay.builder().auth(true).start()) {
            assertThat(relay.authRequired()).isTrue();
            assertThat(relay.output()).contains("auth=on");
        }
    }

    @Test
    void installPackages_npmCiFails_failsNamingTheDirectoryAndExitCode(@TempDir Path directory) throws IOException {
        // No package-lock.json: npm ci refuses at once, without the network.
        Files.writeString(directory.resolve("package.json"), "{\"name\":\"broken\",\"version\":\"1.0.0\"}");

        assertThatThrownBy(() -> TestRelay.installPackages(directory))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("npm ci in " + directory + " failed with exit code")
                .hasMessageContaining("the Node program cannot run without its packages");
    }

    @Test
    void installPackages_nodeModulesMissing_installsThemWithNpmCi(@TempDir Path directory) throws IOException {
        Path relay = TestRelay.relayDirectory();
        Files.copy(relay.resolve("package.json"), directory.resolve("package.json"));
        Files.copy(relay.resolve("package-lock.json"), directory.resolve("package-lock.json"));

        TestRelay.installPackages(directory);

        assertThat(directory.resolve("node_modules/@nostr-relay/core/package.json")).isRegularFile();
        assertThat(directory.resolve("node_modules/ws/package.json")).isRegularFile();
    }

    @Test
    void relayDirectory_configuredDirectoryWithoutRelay_failsSayingHowToFixIt(@TempDir Path directory) {
        String previous = System.getProperty("buzz.test.relay.dir");
        System.setProperty("buzz.test.relay.dir", directory.toString());
        try {
            assertThatThrownBy(TestRelay::relayDirectory)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot find the test relay (relay.js) in [" + directory + "]")
                    .hasMessageContaining("set -Dbuzz.test.relay.dir or BUZZ_TEST_RELAY_DIR");
        } finally {
            if (previous == null) {
                System.clearProperty("buzz.test.relay.dir");
            } else {
                System.setProperty("buzz.test.relay.dir", previous);
            }
        }
    }
}

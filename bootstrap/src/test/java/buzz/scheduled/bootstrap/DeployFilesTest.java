package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.bootstrap.config.SidecarConfig;
import buzz.scheduled.bootstrap.launcher.Launcher;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files under {@code deploy/}: the systemd unit passes {@code systemd-analyze verify} (installed by
 * {@code .ci/run}) and agrees with the jar's exit codes; the sample environment file is a configuration the sidecar
 * starts with; the Dockerfile (which cannot be built here: no Docker engine) runs as a non-root user with its data
 * directory as the volume and a health check on {@code /readyz}.
 */
class DeployFilesTest {

    private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
    private static final Path UNIT = DEPLOY.resolve("buzz-scheduled-delivery.service");
    private static final Path ENV_FILE = DEPLOY.resolve("buzz-scheduled-delivery.env");
    private static final Path DOCKERFILE = DEPLOY.resolve("Dockerfile");
    private static final Pattern VARIABLE_LINE = Pattern.compile("^#?([A-Z][A-Z0-9_]*)=(.*)$");

    @TempDir
    Path work;

    @Test
    void systemdUnit_systemdAnalyzeVerify_acceptsItWithoutAWarning() throws Exception {
        String unit = Files.readString(UNIT);
        // verify checks that the ExecStart binary exists: /usr/bin/env, which runs ${JAVA}.
        assertThat(unit).containsOnlyOnce("ExecStart=/usr/bin/env ${JAVA} ");
        Path copy = work.resolve(UNIT.getFileName());
        Files.writeString(copy, unit);

        Process verify;
        try {
            verify = new ProcessBuilder("systemd-analyze", "verify", copy.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("systemd-analyze is not installed (.ci/run installs the systemd package): " + e, e);
        }
        verify.getOutputStream().close();
        String output = new String(verify.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(verify.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(verify.exitValue()).as(output).isZero();
        assertThat(output).as("warnings of systemd-analyze verify").isEmpty();
    }

    @Test
    void systemdUnit_settings_matchTheJarAndRunUnprivileged() throws IOException {
        Map<String, String> service = settings(Files.readString(UNIT));

        assertThat(service.get("User")).isNotBlank().isNotIn("root", "0");
        assertThat(service.get("StateDirectory")).isEqualTo("buzz-scheduled-delivery");
        assertThat(service.get("Environment"))
                .isEqualTo("BUZZ_DATA_DIR=/var/lib/buzz-scheduled-delivery JAVA=/usr/bin/java");
        assertThat(service.get("ExecStart")).endsWith("-jar /opt/buzz-scheduled-delivery/buzz-scheduled-delivery.jar serve")
                .as("the embedded PostgreSQL's binaries go under BUZZ_DATA_DIR; the old cache option means nothing")
                .doesNotContain("ot.epg");
        assertThat(service.get("RestartPreventExitStatus"))
                .isEqualTo(Main.EXIT_USAGE + " " + Main.EXIT_SCHEMA_NEWER + " " + Launcher.EXIT_JAVA_TOO_OLD);
        assertThat(service.get("KillMode")).isEqualTo("mixed");
        assertThat(Long.parseLong(service.get("TimeoutStopSec")))
                .as("longer than the default shutdown grace").isGreaterThan(SidecarConfig.fromEnvironment(Map.of())
                        .delivery().shutdownGrace().toSeconds());
    }

    @Test
    void environmentFile_sample_isAValidConfigurationOfDocumentedVariablesOnly() throws IOException {
        Map<String, String> set = new LinkedHashMap<>();
        List<String> named = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(ENV_FILE)) {
            Matcher variable = VARIABLE_LINE.matcher(line);
            if (variable.matches()) {
                named.add(variable.group(1));
                if (!line.startsWith("#")) {
                    set.put(variable.group(1), variable.group(2));
                }
            } else {
                assertThat(line).as("a comment or a blank line").matches("|#.*");
            }
        }
        String readme = Files.readString(Path.of("..", "README.md"));

        assertThat(named).allSatisfy(name -> assertThat(readme).as(name + " in README.md").contains("`" + name + "`"));
        assertThat(set).containsEntry("BUZZ_SCHEDULED_MESSAGES", "off").doesNotContainKey("BUZZ_DATA_DIR");
        SidecarConfig config = SidecarConfig.fromEnvironment(set);
        assertThat(config.scheduledMessages()).isFalse();
        assertThat(config.database().url()).as("the embedded database").isEmpty();
    }

    @Test
    void dockerfile_runsUnprivilegedWithTheDataDirectoryAsVolumeAndAReadyzHealthCheck() throws IOException {
        String dockerfile = Files.readString(DOCKERFILE);
        String runtime = dockerfile.substring(dockerfile.lastIndexOf("\nFROM "));

        String user = single(runtime, "^USER (\\S+)$");
        assertThat(user).isNotIn("root", "0");
        assertThat(runtime).contains("useradd --system --uid 10001 --gid buzz");
        String dataDir = single(runtime, "BUZZ_DATA_DIR=(\\S+)");
        assertThat(single(runtime, "^VOLUME \\[\"([^\"]+)\"\\]$")).isEqualTo(dataDir);
        assertThat(runtime).contains("install -d -o " + user + " -g " + user + " -m 0700 " + dataDir);
        assertThat(single(runtime, "^HEALTHCHECK (.*)\\\\$")).contains("--start-period=");
        assertThat(runtime).contains("CMD curl -fsS \"http://127.0.0.1:${HTTP_PORT}/readyz\" || exit 1");
        assertThat(single(runtime, "^EXPOSE (\\d+)$")).isEqualTo(single(runtime, "HTTP_PORT=(\\d+)"));
        String jar = single(runtime, "^COPY --from=build /src/bootstrap/target/buzz-scheduled-delivery.jar (\\S+)$");
        assertThat(runtime).contains("ENTRYPOINT [\"java\", \"-jar\", \"" + jar + "\"]").contains("CMD [\"serve\"]");
    }

    @Test
    void dockerfile_headersDockerRuns_withTheSampleEnvFile_giveAWorkingInstallation() throws IOException {
        String dockerfile = Files.readString(DOCKERFILE);
        Map<String, String> image = imageEnvironment(dockerfile);
        List<List<String>> runs = headerDockerRuns(dockerfile);

        assertThat(runs).as("docker run commands in the Dockerfile's header").hasSize(2);
        for (List<String> run : runs) {
            Map<String, String> environment = new LinkedHashMap<>(image);
            String network = "bridge";
            List<String> published = new java.util.ArrayList<>();
            for (int i = 0; i < run.size() - 1; i++) {
                switch (run.get(i)) {
                    case "--env-file" -> {
                        assertThat(run.get(i + 1)).isEqualTo("deploy/buzz-scheduled-delivery.env");
                        environment.putAll(envFile(DEPLOY.getParent().resolve(run.get(i + 1))));
                    }
                    case "--network" -> network = run.get(i + 1);
                    case "-p" -> published.add(run.get(i + 1));
                    default -> {
                    }
                }
            }
            for (int i = 0; i < run.size() - 1; i++) {
                if (run.get(i).equals("-e")) {
                    String[] pair = run.get(i + 1).split("=", 2);
                    environment.put(pair[0], pair[1]);
                }
            }
            SidecarConfig config = SidecarConfig.fromEnvironment(environment);
            String described = String.join(" ", run);

            assertThat(config.scheduledMessages()).as("switched on deliberately: " + described).isTrue();
            URI publicUrl = config.http().publicBaseUrl();
            if (network.equals("host")) {
                assertThat(config.relay().url().getHost()).as("the host's relay").isEqualTo("127.0.0.1");
                assertThat(config.http().host()).as("listening on the host's loopback only").isEqualTo("127.0.0.1");
                assertThat(publicUrl).as("what a client on this host calls")
                        .isEqualTo(URI.create("http://127.0.0.1:" + config.http().port()));
            } else {
                assertThat(config.relay().url().getHost()).as("RELAY_URL of " + described + " is not the container")
                        .isNotIn("127.0.0.1", "localhost", "::1");
                assertThat(published).as("the published port a client on this host calls, " + publicUrl)
                        .contains(publicUrl.getHost() + ":" + publicUrl.getPort() + ":" + config.http().port());
            }
        }
    }

    /** The runtime stage's {@code ENV} instruction, {@code KEY=value} pairs across its continuation lines. */
    private static Map<String, String> imageEnvironment(String dockerfile) {
        String runtime = dockerfile.substring(dockerfile.lastIndexOf("\nFROM "));
        Matcher env = Pattern.compile("^ENV ((?:.*\\\\\\n)*.*)$", Pattern.MULTILINE).matcher(runtime);
        assertThat(env.find()).as("an ENV instruction").isTrue();
        Map<String, String> variables = new LinkedHashMap<>();
        for (String pair : env.group(1).replace("\\", " ").trim().split("\\s+")) {
            String[] parts = pair.split("=", 2);
            variables.put(parts[0], parts[1]);
        }
        return variables;
    }

    /** Each {@code docker run} of the header comment, as its words (continuation lines joined). */
    private static List<List<String>> headerDockerRuns(String dockerfile) {
        List<List<String>> runs = new java.util.ArrayList<>();
        StringBuilder current = null;
        for (String line : dockerfile.lines().takeWhile(line -> line.startsWith("#")).toList()) {
            String text = line.substring(1).trim();
            if (text.startsWith("docker run ")) {
                current = new StringBuilder();
            }
            if (current != null) {
                current.append(' ').append(text.endsWith("\\") ? text.substring(0, text.length() - 1) : text);
                if (!text.endsWith("\\")) {
                    runs.add(List.of(current.toString().trim().split("\\s+")));
                    current = null;
                }
            }
        }
        return runs;
    }

    /** The {@code VARIABLE=value} lines of an environment file that are not comments. */
    private static Map<String, String> envFile(Path file) throws IOException {
        Map<String, String> set = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            Matcher variable = VARIABLE_LINE.matcher(line);
            if (variable.matches() && !line.startsWith("#")) {
                set.put(variable.group(1), variable.group(2));
            }
        }
        return set;
    }

    /** {@code key=value} lines of a unit file (the last one wins, as for systemd's single-valued settings). */
    private static Map<String, String> settings(String unit) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : unit.lines().toList()) {
            int equals = line.indexOf('=');
            if (!line.startsWith("#") && equals > 0) {
                settings.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
        return settings;
    }

    private static String single(String text, String regex) {
        Matcher matcher = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
        assertThat(matcher.find()).as(regex + " in the Dockerfile").isTrue();
        String value = matcher.group(1);
        assertThat(matcher.find()).as(regex + " once in the Dockerfile").isFalse();
        return value;
    }
}

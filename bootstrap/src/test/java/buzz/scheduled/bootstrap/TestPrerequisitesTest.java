package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code .ci/test-prerequisites}, which the root pom runs before the README's test command builds anything: on a
 * machine without the Debian programs the tests need (simulated by a {@code PATH} of only the shell's basics, node and
 * npm) it names the packages and the command that installs them in one line, or installs them with apt-get when it
 * runs as root (a stand-in {@code apt-get} records what it was asked); with everything there it does nothing.
 */
class TestPrerequisitesTest {
    private static final Path SCRIPT = Path.of("..", ".ci", "test-prerequisites").toAbsolutePath().normalize();
    private static final List<String> PATH_ONLY_PACKAGES = List.of("prometheus", "chromium", "systemd",
            "postgresql-client", "faketime");

    @TempDir
    Path work;

    @Test
    void freshMachine_notRoot_namesTheMissingPackagesAndTheInstallCommandInOneLine() throws Exception {
        Path bin = basics(false);

        Run run = run(bin, Map.of());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.stderr().lines()).as("one line").hasSize(1);
        assertThat(run.stderr()).startsWith("the tests need the Debian packages ")
                .contains("(README.md, Requirements); install them with: sudo apt-get install -y"
                        + " --no-install-recommends ");
        PATH_ONLY_PACKAGES.forEach(name -> assertThat(run.stderr()).contains(" " + name));
    }

    @Test
    void freshMachine_root_installsTheMissingPackagesWithAptGet() throws Exception {
        Path bin = basics(true);

        Run run = run(bin, Map.of());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<String> asked = Files.readAllLines(work.resolve("apt-get.log"));
        assertThat(asked.getFirst()).isEqualTo("update -q");
        assertThat(asked.get(1)).startsWith("install -y -q --no-install-recommends ");
        PATH_ONLY_PACKAGES.forEach(name -> assertThat(asked.get(1)).contains(" " + name));
        assertThat(run.stderr()).contains("installing the Debian packages the tests need: ");
    }

    @Test
    void thisMachine_everythingInstalled_checksQuietlyAndSucceeds() throws Exception {
        Run run = run(null, Map.of("BUZZ_TEST_PREREQUISITES", "check"));

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.stderr()).isEmpty();
    }

    /**
     * A directory of the programs any machine has (bash, sh, sed, dirname), node and npm, and {@code id} answering
     * 0 (root) or 1000; with {@code root} also an {@code apt-get} that records its arguments and succeeds.
     */
    private Path basics(boolean root) throws IOException {
        Path bin = Files.createDirectory(work.resolve("bin"));
        for (String program : List.of("bash", "sh", "sed", "dirname", "node", "npm")) {
            Path real = which(program);
            Files.createSymbolicLink(bin.resolve(program), real);
        }
        script(bin.resolve("id"), "#!/bin/sh\necho " + (root ? 0 : 1000) + "\n");
        if (root) {
            script(bin.resolve("apt-get"), "#!/bin/sh\necho \"$*\" >> " + work.resolve("apt-get.log") + "\n");
        }
        return bin;
    }

    private static void script(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static Path which(String program) {
        for (String directory : System.getenv("PATH").split(":")) {
            Path candidate = Path.of(directory, program);
            if (Files.isExecutable(candidate)) {
                return candidate.toAbsolutePath();
            }
        }
        throw new AssertionError(program + " is not on this machine's PATH");
    }

    record Run(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    /** Runs the script, with {@code bin} as the whole {@code PATH} when given. */
    private Run run(Path bin, Map<String, String> environment) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("/bin/bash", SCRIPT.toString())
                .redirectOutput(work.resolve("out").toFile()).redirectError(work.resolve("err").toFile());
        if (bin != null) {
            builder.environment().put("PATH", bin.toString());
        }
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the script finished").isTrue();
        return new Run(process.exitValue(), Files.readString(work.resolve("out"), StandardCharsets.UTF_8),
                Files.readString(work.resolve("err"), StandardCharsets.UTF_8));
    }
}

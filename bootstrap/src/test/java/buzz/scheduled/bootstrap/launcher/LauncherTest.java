package buzz.scheduled.bootstrap.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's entry point, {@link Launcher}, compiled for Java 8: under a real older JVM (Debian 12's default
 * {@code /usr/bin/java} is 17) it prints one line naming the Java found, the Java needed and how to point at a newer
 * one, and exits with a code the systemd unit's {@code RestartPreventExitStatus} names, so systemd does not restart it
 * every {@code RestartSec} forever; under this JVM it hands over to {@code Main}.
 */
class LauncherTest {

    private static final Path CLASSES = Path.of("target", "classes").toAbsolutePath();
    private static final Path UNIT = Path.of("..", "deploy", "buzz-scheduled-delivery.service").toAbsolutePath()
            .normalize();

    @TempDir
    Path work;

    @Test
    void olderJava_entryPoint_printsOneLineWithTheJavaFoundAndNeededAndExitsWithoutTouchingAnything()
            throws Exception {
        OldJava old = olderJava();
        List<String> newer = Launcher.newerJavas(new File("/usr/lib/jvm"));

        Run run = run(List.of(old.java().toString(), "-cp", CLASSES.toString(), Launcher.class.getName(), "serve"),
                Map.of("BUZZ_DATA_DIR", work.resolve("var").toString()));

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(Launcher.EXIT_JAVA_TOO_OLD);
        assertThat(run.stdout()).isEmpty();
        assertThat(run.stderr().lines().toList()).as("one line").hasSize(1);
        assertThat(run.stderr()).startsWith("buzz-scheduled-delivery needs Java 21 or newer, but this is Java "
                        + old.version() + " (")
                .contains("set JAVA=/path/to/bin/java in /etc/buzz-scheduled-delivery/buzz-scheduled-delivery.env")
                .contains("export JAVA_HOME=<jdk> PATH=<jdk>/bin:$PATH")
                .endsWith(newer.isEmpty() ? "(none found under /usr/lib/jvm; install a JDK 21+)\n"
                        : "(installed here: " + String.join(", ", newer) + ")\n")
                .doesNotContain("UnsupportedClassVersionError").doesNotContain("Exception");
        assertThat(work.resolve("var")).as("nothing was started").doesNotExist();
        System.out.printf("%s (%s): exit %d, %s", old.java(), old.version(), run.exitCode(), run.stderr());
    }

    @Test
    void systemdUnit_restartSettings_stopTheLoopOnTheVersionErrorButRestartOtherFailures() throws Exception {
        Map<String, List<String>> service = serviceSettings();
        OldJava old = olderJava();
        int versionError = run(List.of(old.java().toString(), "-cp", CLASSES.toString(), Launcher.class.getName(),
                "serve"), Map.of()).exitCode();

        assertThat(versionError).isEqualTo(Launcher.EXIT_JAVA_TOO_OLD);
        assertThat(restarts(service, versionError)).as("restart after exit " + versionError).isFalse();
        assertThat(restarts(service, 1)).as("restart after exit 1 (a failure restarting may cure)").isTrue();
        assertThat(restarts(service, 143)).as("restart after SIGTERM's 143 (a clean stop)").isFalse();
        assertThat(service.get("ExecStart")).singleElement().asString()
                .startsWith("/usr/bin/env ${JAVA} -jar ");
        assertThat(service.get("Environment")).anySatisfy(line -> assertThat(line).contains("JAVA=/usr/bin/java"));
    }

    @Test
    void thisJava_entryPoint_handsOverToMain() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();

        Run run = run(List.of(java, "-cp", System.getProperty("java.class.path"), Launcher.class.getName(),
                "--version"), Map.of());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.stdout()).matches("buzz-scheduled-delivery \\S+ \\(Java " + Pattern.quote(
                Runtime.version().toString()) + "\\)\\R");
    }

    @Test
    void shadedJar_mainClass_isTheLauncherCompiledForJava8() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"));
        byte[] launcher = Files.readAllBytes(CLASSES.resolve(Launcher.class.getName().replace('.', '/') + ".class"));

        assertThat(pom).contains("<mainClass>" + Launcher.class.getName() + "</mainClass>");
        int major = (launcher[6] & 0xff) << 8 | launcher[7] & 0xff;
        assertThat(major).as("class file major version (52 = Java 8)").isEqualTo(52);
    }

    @Test
    void feature_specificationVersions_areTheirFeatureRelease() {
        assertThat(Launcher.feature("1.8")).isEqualTo(8);
        assertThat(Launcher.feature("17")).isEqualTo(17);
        assertThat(Launcher.feature("25")).isEqualTo(25);
        assertThat(Launcher.feature("21.0.3")).isEqualTo(21);
        assertThat(Launcher.feature("")).isZero();
        assertThat(Launcher.feature("x")).isZero();
    }

    /**
     * Whether systemd restarts the unit after the main process exits with {@code code}, by systemd.service(5):
     * {@code Restart=on-failure} restarts after an unclean exit code (not 0 and not in {@code SuccessExitStatus}),
     * unless the code is in {@code RestartPreventExitStatus}.
     */
    private static boolean restarts(Map<String, List<String>> service, int code) {
        assertThat(service.get("Restart")).containsExactly("on-failure");
        Set<Integer> success = codes(service.getOrDefault("SuccessExitStatus", List.of()));
        Set<Integer> prevent = codes(service.getOrDefault("RestartPreventExitStatus", List.of()));
        boolean clean = code == 0 || success.contains(code);
        return !clean && !prevent.contains(code);
    }

    private static Set<Integer> codes(List<String> lines) {
        return lines.stream().flatMap(line -> Arrays.stream(line.trim().split("\\s+"))).map(Integer::valueOf)
                .collect(Collectors.toSet());
    }

    /** {@code key=value} lines of the unit, every value of each key in order. */
    private static Map<String, List<String>> serviceSettings() throws IOException {
        Map<String, List<String>> settings = new LinkedHashMap<>();
        for (String line : Files.readAllLines(UNIT)) {
            int equals = line.indexOf('=');
            if (!line.startsWith("#") && equals > 0) {
                settings.computeIfAbsent(line.substring(0, equals), key -> new ArrayList<>())
                        .add(line.substring(equals + 1));
            }
        }
        return settings;
    }

    /** An installed JVM older than Java 21, with its {@code java.version}. */
    record OldJava(Path java, String version) {
    }

    /**
     * The first JVM older than Java 21 among {@code /usr/bin/java} (Debian 12's default is 17) and
     * {@code /usr/lib/jvm/*}, by its {@code release} file.
     */
    private static OldJava olderJava() throws IOException {
        List<Path> candidates = new ArrayList<>();
        candidates.add(Path.of("/usr/bin/java"));
        File[] jvms = new File("/usr/lib/jvm").listFiles();
        if (jvms != null) {
            Arrays.stream(jvms).sorted().forEach(jvm -> candidates.add(jvm.toPath().resolve("bin").resolve("java")));
        }
        for (Path java : candidates) {
            if (!Files.isExecutable(java)) {
                continue;
            }
            Path release = java.toRealPath().getParent().getParent().resolve("release");
            Optional<String> version = releaseVersion(release);
            if (version.isPresent() && Launcher.feature(version.get()) < Launcher.REQUIRED) {
                return new OldJava(java, version.get());
            }
        }
        throw new AssertionError("no Java older than 21 is installed (looked at " + candidates + "); this test runs the"
                + " jar's entry point under one: apt-get install openjdk-17-jre-headless");
    }

    private static Optional<String> releaseVersion(Path release) throws IOException {
        if (!Files.isRegularFile(release)) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(release)) {
            return lines.map(Pattern.compile("^JAVA_VERSION=\"([^\"]+)\"$")::matcher).filter(Matcher::matches)
                    .map(matcher -> matcher.group(1)).findFirst();
        }
    }

    record Run(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    private Run run(List<String> command, Map<String, String> environment) throws Exception {
        Path out = work.resolve("stdout.txt");
        Path err = work.resolve("stderr.txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().clear();
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not exit within 60 s");
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}

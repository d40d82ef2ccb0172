package buzz.scheduled.bootstrap.launcher;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The jar's {@code Main-Class}, compiled for Java 8 ({@code --release 8}) so that any JVM since then can run it: it
 * checks that the JVM is Java {@value #REQUIRED} or newer and hands over to {@code buzz.scheduled.bootstrap.Main};
 * on an older JVM it prints one line (the Java found, the Java needed, how to point at a newer one) and exits
 * {@value #EXIT_JAVA_TOO_OLD}, a code the systemd unit does not restart on ({@code RestartPreventExitStatus}), instead
 * of the {@code UnsupportedClassVersionError} an older JVM raises on the real entry point.
 *
 * <p>Only Java 8 APIs here: this class is loaded by whatever {@code java} the operator ran.
 */
public final class Launcher {

    /** The oldest Java feature release the sidecar runs on. */
    public static final int REQUIRED = 21;
    /** Exit code when the JVM is older than {@value #REQUIRED}. */
    public static final int EXIT_JAVA_TOO_OLD = 9;
    /** The class the launcher hands over to. */
    static final String MAIN = "buzz.scheduled.bootstrap.Main";
    /** Where Debian-style systems keep their JVMs, searched for a newer one to name in the message. */
    private static final File JVM_DIRECTORY = new File("/usr/lib/jvm");

    private Launcher() {
    }

    /** Checks the JVM, then runs {@code Main} with {@code args}. */
    public static void main(String[] args) throws Throwable {
        String found = System.getProperty("java.specification.version", "");
        if (feature(found) < REQUIRED) {
            System.err.println(tooOld(System.getProperty("java.version", found), System.getProperty("java.home", "?"),
                    newerJavas(JVM_DIRECTORY)));
            System.exit(EXIT_JAVA_TOO_OLD);
            return;
        }
        try {
            Class.forName(MAIN).getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * The feature release of a {@code java.specification.version}: {@code 1.8} is 8, {@code 17} is 17; 0 when it
     * cannot be read.
     */
    static int feature(String specificationVersion) {
        String text = specificationVersion.startsWith("1.") ? specificationVersion.substring(2) : specificationVersion;
        int end = 0;
        while (end < text.length() && Character.isDigit(text.charAt(end))) {
            end++;
        }
        return end == 0 || end > 4 ? 0 : Integer.parseInt(text.substring(0, end));
    }

    /**
     * The one line an operator reads: what was found, what is needed, how to choose another {@code java}.
     *
     * @param version the running JVM's {@code java.version}
     * @param home    its {@code java.home}
     * @param newer   {@code bin/java} of newer JVMs installed on this machine, possibly none
     */
    static String tooOld(String version, String home, List<String> newer) {
        return "buzz-scheduled-delivery needs Java " + REQUIRED + " or newer, but this is Java " + version + " ("
                + home + "); run it with a newer java: for the systemd unit set JAVA=/path/to/bin/java in "
                + "/etc/buzz-scheduled-delivery/buzz-scheduled-delivery.env, in a shell export JAVA_HOME=<jdk> "
                + "PATH=<jdk>/bin:$PATH"
                + (newer.isEmpty() ? " (none found under /usr/lib/jvm; install a JDK " + REQUIRED + "+)"
                : " (installed here: " + join(newer) + ")");
    }

    /** {@code bin/java} of each JVM under {@code directory} whose {@code release} file says {@value #REQUIRED}+. */
    static List<String> newerJavas(File directory) {
        List<String> found = new ArrayList<String>();
        File[] entries = directory.listFiles();
        if (entries == null) {
            return found;
        }
        Arrays.sort(entries);
        for (File jvm : entries) {
            File java = new File(new File(jvm, "bin"), "java");
            File release = new File(jvm, "release");
            // Debian's alias links (java-1.17.0-openjdk-amd64 → java-17-openjdk-amd64) would name a JVM twice.
            if (!java.canExecute() || !release.isFile() || Files.isSymbolicLink(jvm.toPath())) {
                continue;
            }
            try {
                for (String line : Files.readAllLines(release.toPath(), StandardCharsets.UTF_8)) {
                    if (line.startsWith("JAVA_VERSION=")
                            && feature(line.substring("JAVA_VERSION=".length()).replace("\"", "")) >= REQUIRED) {
                        found.add(java.getPath());
                    }
                }
            } catch (IOException e) {
                // An unreadable JVM is simply not suggested.
            }
        }
        return found;
    }

    private static String join(List<String> paths) {
        StringBuilder text = new StringBuilder();
        for (String path : paths) {
            text.append(text.length() == 0 ? "" : ", ").append(path);
        }
        return text.toString();
    }
}

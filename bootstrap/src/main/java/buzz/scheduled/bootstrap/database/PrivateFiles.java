package buzz.scheduled.bootstrap.database;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

/**
 * Files and directories only the sidecar's own OS user may change (or, for secrets, read): how the embedded
 * PostgreSQL keeps other local users from planting binaries or reading its passwords.
 */
final class PrivateFiles {

    /** {@code rwx------}. */
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    /** {@code rw-------}. */
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> WRITE_BY_OTHERS = EnumSet.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);
    private static final Set<PosixFilePermission> ANY_BY_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private PrivateFiles() {
    }

    /** The numeric user id this process runs as. */
    static long currentUid() {
        return new com.sun.security.auth.module.UnixSystem().getUid();
    }

    /** The numeric owner of {@code path} itself (a link is not followed). */
    static long ownerUid(Path path) throws IOException {
        return ((Number) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
    }

    /**
     * Creates {@code directory} with mode 0700 when it is missing (its missing parents get the usual mode).
     *
     * @return whether it was created now
     */
    static boolean createPrivateDirectory(Path directory) throws IOException {
        if (Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        Path parent = directory.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(DIRECTORY));
        } catch (FileAlreadyExistsException raced) {
            return false;
        }
        Files.setPosixFilePermissions(directory, DIRECTORY); // the umask may have taken bits away, never added
        return true;
    }

    /**
     * Refuses {@code path} (not following a link) unless this process's user owns it and, unless it is a symbolic
     * link (whose own mode means nothing), neither its group nor other users may write to it.
     *
     * @param what what the path is, for the message
     * @throws UnsafeFileException naming the path and what to do
     */
    static void requireNotWritableByOthers(Path path, String what) throws IOException {
        long owner = ownerUid(path);
        long self = currentUid();
        if (owner != self) {
            throw new UnsafeFileException(what + " " + path + " is owned by uid " + owner + ", not by uid " + self
                    + " that runs the sidecar; another user could have changed it. Remove it (or chown it to uid "
                    + self + " if you know it is sound) and start again");
        }
        if (Files.isSymbolicLink(path)) {
            return;
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
        if (mode.stream().anyMatch(WRITE_BY_OTHERS::contains)) {
            throw new UnsafeFileException(what + " " + path + " is writable by its group or by other users (mode "
                    + PosixFilePermissions.toString(mode) + "), so another user could change it; run 'chmod go-w "
                    + path + "' (and check nothing was changed) or remove it, then start again");
        }
    }

    /**
     * Refuses a secret file unless this process's user owns it and its group and other users have no access.
     *
     * @throws UnsafeFileException naming the file and the chmod to run
     */
    static void requireSecret(Path file) throws IOException {
        requireNotWritableByOthers(file, "the secret file");
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
        if (mode.stream().anyMatch(ANY_BY_OTHERS::contains)) {
            throw new UnsafeFileException("the secret file " + file + " is readable by its group or by other users"
                    + " (mode " + PosixFilePermissions.toString(mode) + "); run 'chmod 600 " + file + "' and, since"
                    + " others could have read it, delete it to have new passwords made, then start again");
        }
    }

    /**
     * Writes {@code content} to {@code target} so that it never exists with a wider mode than 0600 or half-written:
     * a temporary file made 0600 beside it, synced, then renamed over it.
     */
    static void writeSecret(Path target, String content) throws IOException {
        Path temporary = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temporary, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(FILE));
                 OutputStream out = java.nio.channels.Channels.newOutputStream(channel)) {
                out.write(content.getBytes(StandardCharsets.UTF_8));
                out.flush();
                channel.force(true);
            }
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}

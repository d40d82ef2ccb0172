package buzz.scheduled.adapters.relay.signature;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.Set;

/**
 * The sidecar's key file ({@code SIDECAR_SECRET_KEY_FILE}): one line holding the secret key as 64 lowercase hex
 * characters. New files are created atomically with mode 0600 and never overwrite an existing key; a file that
 * other users may read or write is refused. Errors name the file but never show its content.
 */
public final class SecretKeyFile {

    private static final Set<PosixFilePermission> OWNER_ONLY =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    /** Any access by the file's group or by other users: a secret key file must be the owner's alone. */
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private SecretKeyFile() {
    }

    /**
     * Writes a newly generated key to {@code file} (mode 0600, parent directories created) — the {@code keygen}
     * command; print {@code key.publicKey()} for the operator.
     *
     * @throws KeyFileException when {@code file} already exists (an existing key is never replaced)
     * @throws UncheckedIOException  when the file cannot be written
     */
    public static SecretKey create(Path file, SecureRandom random) {
        SecretKey key = SecretKey.generate(random);
        write(file, key);
        return key;
    }

    /**
     * Writes {@code key} to a new file {@code file} with mode 0600.
     *
     * @throws KeyFileException when {@code file} already exists
     * @throws UncheckedIOException  when the file cannot be written
     */
    public static void write(Path file, SecretKey key) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            boolean posix = Files.getFileStore(parent).supportsFileAttributeView(PosixFileAttributeView.class);
            FileAttribute<?>[] attributes = posix
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                    : new FileAttribute<?>[0];
            // CREATE_NEW makes creation atomic and refuses to clobber a key someone else just wrote.
            try (FileChannel channel = FileChannel.open(file,
                    EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
                if (posix) {
                    Files.setPosixFilePermissions(file, OWNER_ONLY); // in case the umask is unusual
                }
                ByteBuffer bytes = ByteBuffer.wrap((key.hex() + "\n").getBytes(StandardCharsets.US_ASCII));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
        } catch (FileAlreadyExistsException e) {
            throw new KeyFileException("key file " + file + " already exists; refusing to replace a key", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write key file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads the key from {@code file}.
     *
     * @throws KeyFileException when the file is missing, other users may access it, or it does not hold one
     *                               well-formed key
     * @throws UncheckedIOException  when the file cannot be read
     */
    public static SecretKey read(Path file) {
        try {
            if (Files.getFileStore(file).supportsFileAttributeView(PosixFileAttributeView.class)) {
                requireDirectoryNotWritableByOthers(file);
                Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
                if (permissions.stream().anyMatch(OTHERS::contains)) {
                    throw new KeyFileException("key file " + file + " is accessible to its group or other users (mode "
                            + PosixFilePermissions.toString(permissions) + "); run: chmod 600 " + file);
                }
            }
            String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
            try {
                return new SecretKey(text);
            } catch (IllegalArgumentException e) {
                // The detail must not quote the file: a typo'd key is still mostly a secret.
                String detail = text.length() != 64 ? "it has " + text.length() + " characters"
                        : text.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
                        ? "the value is out of range for secp256k1"
                        : "it holds characters other than lowercase hex";
                throw new KeyFileException("key file " + file + " does not hold a key: " + detail
                        + " (expected one line of 64 lowercase hex characters)");
            }
        } catch (CharacterCodingException e) {
            throw new KeyFileException("key file " + file + " does not hold a key: it is not ASCII text"
                    + " (expected one line of 64 lowercase hex characters)");
        } catch (NoSuchFileException e) {
            throw new KeyFileException("key file " + file + " does not exist; create it with keygen", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read key file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Refuses a key file whose directory another user may write to without the sticky bit (so they could rename
     * the key away and put their own in its place, and the sidecar would authenticate with a key they know).
     */
    private static void requireDirectoryNotWritableByOthers(Path file) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        if (directory == null) {
            return;
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(directory);
        boolean writable = mode.contains(PosixFilePermission.GROUP_WRITE)
                || mode.contains(PosixFilePermission.OTHERS_WRITE);
        if (writable && !sticky(directory)) {
            throw new KeyFileException("key file " + file + " is in " + directory + ", which its group or other users"
                    + " may write to (mode " + PosixFilePermissions.toString(mode) + "), so they could replace the key;"
                    + " run: chmod go-w " + directory + " (or move the key to a directory only you can write)");
        }
    }

    private static boolean sticky(Path directory) throws IOException {
        Object mode = Files.getAttribute(directory, "unix:mode");
        return mode instanceof Integer bits && (bits & 01000) != 0;
    }

    /** Reads {@code file}, or creates it with a new key when it does not exist yet (first {@code serve}). */
    public static SecretKey readOrCreate(Path file, SecureRandom random) {
        if (Files.notExists(file)) {
            try {
                return create(file, random);
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof FileAlreadyExistsException)) {
                    throw e;
                }
                // Another process created it between the check and the write: use theirs.
            }
        }
        return read(file);
    }
}

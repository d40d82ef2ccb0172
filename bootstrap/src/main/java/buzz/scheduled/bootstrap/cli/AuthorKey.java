package buzz.scheduled.bootstrap.cli;

import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.Nip19;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the author's secret key for the client commands ({@code --key-file} or {@code BUZZ_AUTHOR_KEY_FILE}): one
 * line holding the key as 64 hex characters (either case) or as a NIP-19 {@code nsec1…}. Like the sidecar's own
 * key file, a file other users may read is refused. Every problem is a key {@link ClientFailure} that names the file
 * and never shows its content.
 */
final class AuthorKey {

    /** Any access by the file's group or by other users: a secret key file must be the owner's alone. */
    private static final Set<PosixFilePermission> OTHERS = Set.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    private static final String EXPECTED = "expected one line: the secret key as 64 hex characters or nsec1...";

    private AuthorKey() {
    }

    /**
     * The key in {@code file}.
     *
     * @throws ClientFailure with {@link ClientCommands#EXIT_KEY} when the file is missing, unreadable, open to other
     *                       users, or does not hold one valid secp256k1 secret key
     */
    static SecretKey read(Path file) {
        String text;
        try {
            if (Files.getFileStore(file).supportsFileAttributeView(PosixFileAttributeView.class)) {
                Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
                if (permissions.stream().anyMatch(OTHERS::contains)) {
                    throw ClientFailure.key("key file " + file + " is accessible to its group or other users (mode "
                            + PosixFilePermissions.toString(permissions) + "); run: chmod 600 " + file);
                }
            }
            text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            throw ClientFailure.key("key file " + file + " does not exist (" + EXPECTED + ")");
        } catch (AccessDeniedException e) {
            throw ClientFailure.key("key file " + file + " cannot be read: permission denied");
        } catch (CharacterCodingException e) {
            throw ClientFailure.key("key file " + file + " is not ASCII text; " + EXPECTED);
        } catch (IOException e) {
            throw ClientFailure.key("key file " + file + " cannot be read: " + e.getMessage());
        }
        String hex;
        if (text.toLowerCase(Locale.ROOT).startsWith(Nip19.NSEC + "1")) {
            try {
                hex = Nip19.secretKeyHex(text);
            } catch (IllegalArgumentException e) {
                throw ClientFailure.key("key file " + file + " holds an nsec that does not decode: " + e.getMessage());
            }
        } else if (text.length() == 64 && text.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            hex = text.toLowerCase(Locale.ROOT);
        } else {
            String detail = text.isEmpty() ? "it is empty"
                    : text.contains("\n") ? "it has more than one line"
                    : text.length() != 64 ? "it has " + text.length() + " characters"
                    : "it holds characters other than hex";
            throw ClientFailure.key("key file " + file + " does not hold a key: " + detail + " (" + EXPECTED + ")");
        }
        try {
            return new SecretKey(hex);
        } catch (IllegalArgumentException e) {
            throw ClientFailure.key("key file " + file + " does not hold a key: the value is out of range for"
                    + " secp256k1 (BIP-340)");
        }
    }
}

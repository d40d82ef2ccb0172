package buzz.scheduled.bootstrap;

import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.signature.SecretKeyFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;

/**
 * The sidecar's own key ({@code SIDECAR_SECRET_KEY_FILE}, used for NIP-42 AUTH): made by {@code keygen}, or by the
 * first {@code serve} when the file is absent. Files are written with mode 0600 by the relay adapter's
 * {@link SecretKeyFile}.
 */
final class SidecarKeys {

    private SidecarKeys() {
    }

    /** Reads the key, creating the file with a new key first when it does not exist (first {@code serve}). */
    static SecretKey readOrCreate(Path file) {
        return SecretKeyFile.readOrCreate(file, new SecureRandom());
    }

    /**
     * Writes a new key (the {@code keygen} command).
     *
     * @param replace whether an existing key may be replaced ({@code --force}); the replacement is atomic, so the
     *                file never holds a partial key
     * @return the new key
     * @throws IllegalStateException when the file exists and {@code replace} is false
     */
    static SecretKey generate(Path file, boolean replace) {
        if (!replace || Files.notExists(file)) {
            if (Files.exists(file)) {
                throw new IllegalStateException("key file " + file + " already exists (public key "
                        + SecretKeyFile.read(file).publicKey().hex() + "); keygen --force replaces it"
                        + " (the relay must then trust the new public key)");
            }
            return SecretKeyFile.create(file, new SecureRandom());
        }
        Path fresh = file.resolveSibling(file.getFileName() + ".new");
        try {
            Files.deleteIfExists(fresh);
            SecretKey key = SecretKeyFile.create(fresh, new SecureRandom());
            Files.move(fresh, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return key;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replace key file " + file + ": " + e.getMessage(), e);
        }
    }
}

package buzz.scheduled.adapters.relay.signature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretKeyFileTest {
    private static final String ALICE = "bfc8054fd72c3a3d2815e4a0b377c8b5bba4978057cd98580522d3ab82ebe292";

    @TempDir
    Path dir;

    @Test
    void create_newFile_writesOneHexLineWithMode0600() throws IOException {
        Path file = dir.resolve("data/sidecar.key");

        SecretKey key = SecretKeyFile.create(file, new SecureRandom());

        assertThat(Files.readString(file)).isEqualTo(key.hex() + "\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(SecretKeyFile.read(file)).isEqualTo(key);
    }

    @Test
    void create_existingFile_refusesAndKeepsTheOldKey() throws IOException {
        Path file = dir.resolve("sidecar.key");
        SecretKeyFile.write(file, new SecretKey(ALICE));

        assertThatThrownBy(() -> SecretKeyFile.create(file, new SecureRandom()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("key file " + file + " already exists; refusing to replace a key");
        assertThat(Files.readString(file)).isEqualTo(ALICE + "\n");
    }

    @Test
    void read_worldReadableFile_refusesNamingTheMode() throws IOException {
        Path file = dir.resolve("sidecar.key");
        SecretKeyFile.write(file, new SecretKey(ALICE));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> SecretKeyFile.read(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("key file " + file + " is accessible to its group or other users (mode rw-r--r--); run: chmod 600 " + file);
    }

    @Test
    void read_fileInAGroupWritableDirectory_refusesSinceTheKeyCouldBeSwapped() throws IOException {
        Path keys = Files.createDirectory(dir.resolve("keys"));
        Path file = keys.resolve("sidecar.key");
        SecretKeyFile.write(file, new SecretKey(ALICE));
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rwxrwx---"));

        assertThatThrownBy(() -> SecretKeyFile.read(file))
                .isInstanceOf(KeyFileException.class)
                .hasMessage("key file " + file + " is in " + keys + ", which its group or other users may write to"
                        + " (mode rwxrwx---), so they could replace the key; run: chmod go-w " + keys
                        + " (or move the key to a directory only you can write)");
    }

    @Test
    void read_fileInAStickyWorldWritableDirectory_accepts() throws IOException {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Path file = shared.resolve("sidecar.key");
        SecretKeyFile.write(file, new SecretKey(ALICE));
        Files.setAttribute(shared, "unix:mode", 01777); // like /tmp: others cannot rename or remove our file

        assertThat(SecretKeyFile.read(file)).isEqualTo(new SecretKey(ALICE));
    }

    @Test
    void read_groupReadableFile_refusesNamingTheModeToSet() throws IOException {
        Path file = dir.resolve("sidecar.key");
        SecretKeyFile.write(file, new SecretKey(ALICE));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));

        assertThatThrownBy(() -> SecretKeyFile.read(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("key file " + file + " is accessible to its group or other users (mode rw-r-----); run:"
                        + " chmod 600 " + file);
    }

    @Test
    void read_ownerReadOnlyFile_accepts() throws IOException {
        Path file = dir.resolve("sidecar.key");
        SecretKeyFile.write(file, new SecretKey(ALICE));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));

        assertThat(SecretKeyFile.read(file).publicKey().hex())
                .isEqualTo("c62114bce8f2c856c34c059f19aa69c05bd7c42c727791879652d6b206817036");
    }

    @Test
    void read_malformedContent_refusesWithoutQuotingIt() throws IOException {
        Path file = dir.resolve("sidecar.key");
        Files.writeString(file, ALICE.replace('b', 'x'), StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        assertThatThrownBy(() -> SecretKeyFile.read(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("key file " + file + " does not hold a key: it holds characters other than lowercase hex"
                        + " (expected one line of 64 lowercase hex characters)")
                .message().doesNotContain("fc8054");
    }

    @Test
    void read_truncatedContent_refusesNamingTheLength() throws IOException {
        Path file = dir.resolve("sidecar.key");
        Files.writeString(file, ALICE.substring(0, 40) + "\n", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        assertThatThrownBy(() -> SecretKeyFile.read(file)).hasMessageContaining("it has 40 characters");
    }

    @Test
    void read_missingFile_refusesPointingToKeygen() {
        Path file = dir.resolve("absent.key");

        assertThatThrownBy(() -> SecretKeyFile.read(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("key file " + file + " does not exist; create it with keygen");
    }

    @Test
    void readOrCreate_calledTwice_createsOnceThenReadsTheSameKey() {
        Path file = dir.resolve("sidecar.key");

        SecretKey first = SecretKeyFile.readOrCreate(file, new SecureRandom());
        SecretKey second = SecretKeyFile.readOrCreate(file, new SecureRandom());

        assertThat(second).isEqualTo(first);
    }
}

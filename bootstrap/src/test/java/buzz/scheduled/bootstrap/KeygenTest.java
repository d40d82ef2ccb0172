package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.signature.SecretKeyFile;
import buzz.scheduled.domain.nostr.Nip19;
import buzz.scheduled.domain.nostr.PublicKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code keygen [--force]}: a new 0600 key file and its public key on stdout, as hex and as a NIP-19 npub. */
class KeygenTest {

    @TempDir
    Path dataDir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void keygen_noKeyFile_writesAnOwnerOnlyKeyUnderTheDataDirAndPrintsItsPublicKeyAsHexThenNpub() throws Exception {
        int code = main(Map.of("BUZZ_DATA_DIR", dataDir.toString())).run(new String[] {"keygen"});

        Path file = dataDir.resolve("sidecar.key");
        assertThat(code).isEqualTo(Main.EXIT_OK);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        PublicKey key = SecretKeyFile.read(file).publicKey();
        assertThat(stdout()).matches("[0-9a-f]{64}\\Rnpub1[02-9ac-hj-np-z]{58}\\R")
                .isEqualTo(key.hex() + System.lineSeparator() + Nip19.npub(key) + System.lineSeparator());
        assertThat(Nip19.publicKey(stdout().lines().toList().get(1))).isEqualTo(key);
    }

    @Test
    void keygen_keyFileExists_refusesAndKeepsTheKey() throws Exception {
        Path file = dataDir.resolve("custom.key");
        main(Map.of("SIDECAR_SECRET_KEY_FILE", file.toString())).run(new String[] {"keygen"});
        String before = Files.readString(file);
        out.reset();

        int code = main(Map.of("SIDECAR_SECRET_KEY_FILE", file.toString())).run(new String[] {"keygen"});

        assertThat(code).isEqualTo(Main.EXIT_FAILED);
        assertThat(stdout()).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("key file " + file + " already exists")
                .contains("public key " + SecretKeyFile.read(file).publicKey().hex())
                .contains("--force");
        assertThat(Files.readString(file)).isEqualTo(before);
    }

    @Test
    void keygen_forceOverExistingKey_replacesItWithANewOwnerOnlyKey() throws Exception {
        Path file = dataDir.resolve("custom.key");
        main(Map.of("SIDECAR_SECRET_KEY_FILE", file.toString())).run(new String[] {"keygen"});
        String firstPublicKey = stdout().lines().findFirst().orElseThrow();
        out.reset();

        int code = main(Map.of("SIDECAR_SECRET_KEY_FILE", file.toString())).run(new String[] {"keygen", "--force"});

        assertThat(code).isEqualTo(Main.EXIT_OK);
        String secondPublicKey = stdout().lines().findFirst().orElseThrow();
        assertThat(secondPublicKey).isNotEqualTo(firstPublicKey).isEqualTo(SecretKeyFile.read(file).publicKey().hex());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(dataDir.resolve("custom.key.new")).doesNotExist();
    }

    @Test
    void keygen_unknownOption_exitsWith2AndWritesNothing() {
        int code = main(Map.of("BUZZ_DATA_DIR", dataDir.toString())).run(new String[] {"keygen", "--overwrite"});

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("keygen takes --force or --out <file>, got [--overwrite]");
        assertThat(dataDir.resolve("sidecar.key")).doesNotExist();
    }

    private Main main(Map<String, String> env) {
        return new Main(env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }
}

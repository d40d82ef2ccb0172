package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.http.ServerIdentity;
import buzz.scheduled.adapters.relay.signature.SecretKeyFile;
import buzz.scheduled.bootstrap.cli.ClientCommands;
import buzz.scheduled.domain.nostr.Nip19;
import buzz.scheduled.domain.nostr.PublicKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's command line as a new user meets it: {@code --version}, and {@code --help} on every command, print and
 * exit 0 without reading the configuration or a key; {@code keygen --out} writes an author key without touching the
 * sidecar's key or its variable.
 */
class MainCommandLineTest {

    @TempDir
    Path work;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void version_asCommandOrOptionOfAnyCommand_printsTheBuildAndExits0() {
        List<String> printed = new ArrayList<>();
        for (String[] args : List.of(new String[] {"--version"}, new String[] {"version"},
                new String[] {"serve", "--version"}, new String[] {"list", "--version"},
                new String[] {"keygen", "--version"})) {
            out.reset();
            int code = main(Map.of()).run(args);

            assertThat(code).as(String.join(" ", args)).isEqualTo(Main.EXIT_OK);
            printed.add(stdout());
        }

        assertThat(printed).containsOnly("buzz-scheduled-delivery " + ServerIdentity.buildVersion() + " (Java "
                + Runtime.version() + ")\n");
        assertThat(stderr()).isEmpty();
    }

    @Test
    void help_onEveryCommand_printsItsUsageOnStdoutAndExits0WithoutReadingTheConfiguration() {
        // An invalid setting would stop serve at once: help must not read it.
        Map<String, String> broken = Map.of("HTTP_PORT", "not-a-port", "BUZZ_DATA_DIR", work.resolve("var").toString());
        List<String> commands = Stream.concat(Stream.of("serve", "migrate", "keygen"),
                ClientCommands.NAMES.stream().sorted()).toList();
        for (String command : commands) {
            for (String flag : List.of("--help", "-h")) {
                out.reset();
                int code = main(broken).run(new String[] {command, flag});

                assertThat(code).as(command + " " + flag + "\n" + stderr()).isEqualTo(Main.EXIT_OK);
                assertThat(stdout()).as(command + " " + flag).startsWith("usage: java -jar buzz-scheduled-delivery.jar "
                        + command);
            }
        }
        out.reset();
        assertThat(main(broken).run(new String[] {"--help"})).isEqualTo(Main.EXIT_OK);
        assertThat(stdout()).contains("keygen --out <file>").contains("wait <id>");
        assertThat(stderr()).isEmpty();
        assertThat(work.resolve("var")).doesNotExist();
    }

    @Test
    void keygenOut_newFile_writesAnOwnerOnlyAuthorKeyAndPrintsHexThenNpubOnly() throws Exception {
        Path file = work.resolve("config").resolve("author.key");
        Path sidecarKey = work.resolve("sidecar.key");

        int code = main(Map.of("SIDECAR_SECRET_KEY_FILE", sidecarKey.toString(), "BUZZ_DATA_DIR", work.toString()))
                .run(new String[] {"keygen", "--out", file.toString()});

        assertThat(code).as(stderr()).isEqualTo(Main.EXIT_OK);
        PublicKey key = SecretKeyFile.read(file).publicKey();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(stdout()).isEqualTo(key.hex() + "\n" + Nip19.npub(key) + "\n");
        assertThat(sidecarKey).as("the sidecar's key is not touched").doesNotExist();
        assertThat(stderr()).isEmpty();
    }

    @Test
    void keygenOut_existingFile_isRefusedAndTheKeyKept() throws Exception {
        Path file = work.resolve("author.key");
        main(Map.of()).run(new String[] {"keygen", "--out=" + file});
        String before = Files.readString(file);
        out.reset();

        int code = main(Map.of()).run(new String[] {"keygen", "--out", file.toString()});

        assertThat(code).isEqualTo(Main.EXIT_FAILED);
        assertThat(stdout()).isEmpty();
        assertThat(stderr()).isEqualTo("keygen: " + file + " already exists; an author key is never replaced (choose"
                + " another file, or delete that one if it holds no key anyone uses)\n");
        assertThat(Files.readString(file)).isEqualTo(before);
    }

    @Test
    void keygenOut_withoutAFileOrWithForce_isAUsageError() {
        int none = main(Map.of()).run(new String[] {"keygen", "--out"});
        int forced = main(Map.of()).run(new String[] {"keygen", "--out", work.resolve("a.key").toString(), "--force"});

        assertThat(List.of(none, forced)).containsOnly(Main.EXIT_USAGE);
        assertThat(stderr()).contains("keygen --out takes one file name and nothing else");
        assertThat(work.resolve("a.key")).doesNotExist();
    }

    private Main main(Map<String, String> environment) {
        return new Main(environment, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }
}

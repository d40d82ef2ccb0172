package buzz.scheduled.bootstrap.database;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Properties;

/**
 * The passwords of the embedded PostgreSQL's two roles, kept in {@code BUZZ_DATA_DIR/embedded-postgres.password}
 * (mode 0600, refused when its group or other users may read it), made on first use from 32 random bytes each
 * (base64url, so they need no quoting in SQL or a JDBC URL). The file is a properties file:
 * <pre>
 * postgres=...   the superuser, used only by the sidecar to set up roles
 * buzz=...       the application role the pool, LISTEN and migrations connect as
 * </pre>
 *
 * @param superuser   the password of {@value #SUPERUSER}
 * @param application the password of {@value #APPLICATION_ROLE}
 */
record EmbeddedPasswords(String superuser, String application) {

    /** The file under the data directory. */
    static final String FILE = "embedded-postgres.password";
    /** The cluster's superuser. */
    static final String SUPERUSER = "postgres";
    /** The role the application connects as: no superuser, owner of the application's database. */
    static final String APPLICATION_ROLE = "buzz";

    private static final String SAFE = "[A-Za-z0-9_-]{16,}";

    EmbeddedPasswords {
        if (!superuser.matches(SAFE) || !application.matches(SAFE)) {
            throw new IllegalArgumentException("passwords must be at least 16 base64url characters");
        }
    }

    /**
     * Reads the passwords under {@code dataDirectory}, or makes and writes new ones when the file is missing.
     *
     * @throws IllegalStateException when the file is readable by others, not owned by this user, or unusable
     */
    static EmbeddedPasswords loadOrCreate(Path dataDirectory) throws IOException {
        Path file = dataDirectory.resolve(FILE);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            EmbeddedPasswords made = new EmbeddedPasswords(random(), random());
            PrivateFiles.writeSecret(file, "# passwords of the embedded PostgreSQL of buzz-scheduled-delivery;"
                    + " keep this file mode 0600\n" + SUPERUSER + "=" + made.superuser() + "\n" + APPLICATION_ROLE
                    + "=" + made.application() + "\n");
            return made;
        }
        return load(dataDirectory);
    }

    /**
     * Reads the passwords under {@code dataDirectory}.
     *
     * @throws IllegalStateException when the file is readable by others, not owned by this user, or unusable
     * @throws IOException           when it cannot be read (missing, say)
     */
    static EmbeddedPasswords load(Path dataDirectory) throws IOException {
        Path file = dataDirectory.resolve(FILE);
        PrivateFiles.requireSecret(file);
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        try {
            return new EmbeddedPasswords(properties.getProperty(SUPERUSER, ""),
                    properties.getProperty(APPLICATION_ROLE, ""));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(file + " needs the lines " + SUPERUSER + "=... and " + APPLICATION_ROLE
                    + "=... with passwords of at least 16 base64url characters; delete it to have new ones made", e);
        }
    }

    /** A digest of both passwords, to tell whether the cluster was last given these ones. */
    String fingerprint() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((superuser + "\n" + application).getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "EmbeddedPasswords[***]";
    }

    private static String random() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}

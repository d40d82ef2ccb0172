package buzz.scheduled.bootstrap.database;

import java.io.IOException;

/**
 * The superuser of an embedded cluster a test started itself, for what only a superuser may do to it
 * ({@code ALTER SYSTEM}, say): its password is in the cluster's password file.
 */
public final class EmbeddedSuperuser {

    private EmbeddedSuperuser() {
    }

    /** A JDBC URL of {@code database} on {@code cluster} as its superuser, password included. */
    public static String jdbcUrl(java.nio.file.Path dataDirectory, EmbeddedDatabase cluster, String database)
            throws IOException {
        return "jdbc:postgresql://localhost:" + cluster.port() + "/" + database + "?user=" + EmbeddedPasswords.SUPERUSER
                + "&password=" + EmbeddedPasswords.load(dataDirectory).superuser();
    }
}

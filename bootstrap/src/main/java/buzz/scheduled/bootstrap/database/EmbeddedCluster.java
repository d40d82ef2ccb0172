package buzz.scheduled.bootstrap.database;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL's cluster on disk (README.md "Configuration"), readied before the server listens: initdb
 * with password (SCRAM) authentication, {@code pg_hba.conf} asking every connection for a password, and the roles'
 * passwords and the application role {@value EmbeddedPasswords#APPLICATION_ROLE}, set in single-user mode. A cluster
 * whose initdb never finished is set aside, one of another PostgreSQL major version refused. Logs as
 * {@link EmbeddedDatabase}, whose start this is a part of.
 */
final class EmbeddedCluster {
    /** Written into the cluster once initdb has finished; a cluster without it is an interrupted initdb. */
    static final String INITDB_COMPLETE = "buzz-initdb-complete";
    /** The database the application uses, owned by the application role. */
    static final String DATABASE = "postgres";
    /** Written into the cluster once its roles have the passwords of {@link EmbeddedPasswords#FILE} (a digest). */
    static final String ROLES_MARKER = "buzz-roles";
    /** Every connection, local or over TCP, needs a password; written on every start. */
    static final String HBA_CONF = """
            # Written by buzz-scheduled-delivery on every start: every connection needs a password.
            # TYPE  DATABASE     USER  ADDRESS        METHOD
            local   all          all                  scram-sha-256
            host    all          all   127.0.0.1/32   scram-sha-256
            host    all          all   ::1/128        scram-sha-256
            local   replication  all                  scram-sha-256
            host    replication  all   127.0.0.1/32   scram-sha-256
            host    replication  all   ::1/128        scram-sha-256
            """;
    /** How long initdb or a single-user session may take. */
    private static final Duration INITDB_WAIT = Duration.ofMinutes(2);
    /**
     * Hands what the superuser owns in the application's database (outside the system schemas and extensions) to
     * the application role: schemas, tables, views, free-standing sequences, routines, types.
     */
    private static final String HAND_OVER_OBJECTS = """
            DO $$
            DECLARE r record;
            BEGIN
              FOR r IN SELECT n.nspname FROM pg_namespace n WHERE n.nspowner = 'postgres'::regrole
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' LOOP
                EXECUTE format('ALTER SCHEMA %I OWNER TO {role}', r.nspname);
              END LOOP;
              FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c
                  JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.relowner = 'postgres'::regrole
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
                  AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                                  AND d.deptype IN ('a', 'i', 'e'))
                  AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') LOOP
                EXECUTE format('ALTER %s %s OWNER TO {role}', CASE r.relkind WHEN 'v' THEN 'VIEW'
                    WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'S' THEN 'SEQUENCE'
                    ELSE 'TABLE' END, r.name);
              END LOOP;
              FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                  WHERE p.proowner = 'postgres'::regrole
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
                  AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                                  AND d.deptype = 'e') LOOP
                EXECUTE format('ALTER ROUTINE %s OWNER TO {role}', r.name);
              END LOOP;
              FOR r IN SELECT t.oid::regtype AS name, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                  WHERE t.typowner = 'postgres'::regrole AND t.typrelid = 0 AND t.typcategory <> 'A'
                  AND t.typtype IN ('e', 'd', 'r')
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
                  AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid
                                  AND d.deptype = 'e') LOOP
                EXECUTE format('ALTER %s %s OWNER TO {role}', CASE r.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
                    r.name);
              END LOOP;
            END
            $$""";
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);

    private EmbeddedCluster() {
    }

    /**
     * Readies the cluster in {@code pgdata} for a start, in this order: sets aside an interrupted initdb, refuses a
     * cluster of another major version, runs initdb when there is no cluster, writes {@code pg_hba.conf}, and gives
     * the roles the passwords of {@code passwords} when the cluster does not have them yet.
     */
    static void prepare(EmbeddedBinaries binaries, Path directory, Path pgdata, EmbeddedPasswords passwords, Path log)
            throws IOException {
        setAsideIncompleteInit(pgdata);
        requireSameMajorVersion(pgdata);
        if (!Files.exists(pgdata.resolve("postgresql.conf"))) {
            initdb(binaries, directory, pgdata, passwords, log);
        }
        writeHbaConf(pgdata);
        if (!passwords.fingerprint().equals(readRolesMarker(pgdata))) {
            setUpRoles(binaries, pgdata, passwords, log);
        }
    }

    /** Moves a cluster whose initdb never finished out of the way, so a fresh initdb can run. */
    static void setAsideIncompleteInit(Path pgdata) throws IOException {
        if (!Files.isDirectory(pgdata) || Files.exists(pgdata.resolve(INITDB_COMPLETE))) {
            return;
        }
        try (Stream<Path> entries = Files.list(pgdata)) {
            if (entries.findAny().isEmpty()) {
                return;
            }
        }
        Path aside;
        int n = 1;
        do {
            aside = pgdata.resolveSibling(pgdata.getFileName() + ".incomplete-" + n++);
        } while (Files.exists(aside));
        LOG.warn("{} holds an initdb that never finished (no {} marker); moving it to {} and starting afresh", pgdata,
                INITDB_COMPLETE, aside);
        Files.move(pgdata, aside);
    }

    private static void requireSameMajorVersion(Path pgdata) throws IOException {
        Path versionFile = pgdata.resolve("PG_VERSION");
        if (!Files.exists(versionFile)) {
            return;
        }
        String version = Files.readString(versionFile, StandardCharsets.US_ASCII).strip();
        if (!version.equals(EmbeddedDatabase.MAJOR_VERSION)) {
            throw new IllegalStateException(pgdata + " was made by PostgreSQL " + version + " but this build runs"
                    + " PostgreSQL " + EmbeddedDatabase.MAJOR_VERSION + "; dump it with PostgreSQL " + version
                    + " and restore it, or set DATABASE_URL to an external server");
        }
    }

    /**
     * Makes the cluster with password (SCRAM) authentication from the start, so it never accepts a connection
     * without one; the superuser's password goes in through a 0600 file that is removed afterwards.
     */
    private static void initdb(EmbeddedBinaries binaries, Path directory, Path pgdata, EmbeddedPasswords passwords,
                               Path log) throws IOException {
        Path pwfile = directory.resolve(".initdb-password");
        PrivateFiles.writeSecret(pwfile, passwords.superuser() + "\n");
        try {
            LOG.info("creating the embedded PostgreSQL cluster in {}", pgdata);
            int status = EmbeddedServer.run(binaries.command("initdb", List.of("-D", pgdata.toString(), "-U",
                    EmbeddedPasswords.SUPERUSER, "--auth=scram-sha-256", "--pwfile=" + pwfile, "-E", "UTF-8")), log,
                    INITDB_WAIT);
            if (status != 0) {
                throw new IOException("initdb exited with status " + status + "; see " + log);
            }
        } finally {
            Files.deleteIfExists(pwfile);
        }
        markInitdbComplete(pgdata);
    }

    /** Makes {@code pg_hba.conf} say: a password (SCRAM) for every connection, whoever and from wherever. */
    static void writeHbaConf(Path pgdata) throws IOException {
        Path hba = pgdata.resolve("pg_hba.conf");
        if (Files.exists(hba) && Files.readString(hba, StandardCharsets.UTF_8).equals(HBA_CONF)) {
            return;
        }
        LOG.info("writing {}: password (scram-sha-256) authentication for every connection", hba);
        PrivateFiles.writeSecret(hba, HBA_CONF);
    }

    private static String readRolesMarker(Path pgdata) throws IOException {
        Path marker = pgdata.resolve(ROLES_MARKER);
        return Files.exists(marker) ? Files.readString(marker, StandardCharsets.US_ASCII).strip() : "";
    }

    /**
     * Gives the superuser and the application role the passwords of {@link EmbeddedPasswords}, creates the role when
     * missing and hands it the application's database and whatever the superuser owns in it (a cluster made by an
     * earlier version, where the application ran as the superuser). Runs PostgreSQL in single-user mode (no network,
     * no other session), so a cluster of an earlier version never listens with its old trust rules; remembered in
     * {@value #ROLES_MARKER} so that it runs again only when the passwords change.
     */
    private static void setUpRoles(EmbeddedBinaries binaries, Path pgdata, EmbeddedPasswords passwords, Path log)
            throws IOException {
        LOG.info("setting the embedded PostgreSQL's passwords and the application role {} in {}",
                EmbeddedPasswords.APPLICATION_ROLE, pgdata);
        String app = EmbeddedPasswords.APPLICATION_ROLE;
        String sql = String.join(";\n\n",
                "SET password_encryption = 'scram-sha-256'",
                "ALTER ROLE " + EmbeddedPasswords.SUPERUSER + " WITH PASSWORD '" + passwords.superuser() + "'",
                "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + app + "') THEN CREATE ROLE "
                        + app + "; END IF; END$$",
                "ALTER ROLE " + app + " WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
                        + " PASSWORD '" + passwords.application() + "'",
                "ALTER DATABASE " + DATABASE + " OWNER TO " + app,
                HAND_OVER_OBJECTS.replace("{role}", app)) + ";\n\n";
        Path output = Files.createTempFile(pgdata, "single-user", ".log");
        try {
            Process process = new ProcessBuilder(binaries.command("postgres", List.of("--single", "-j", "-D",
                    pgdata.toString(), "-c", "log_min_error_statement=panic", "-c", "exit_on_error=on", DATABASE)))
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            try (OutputStream in = process.getOutputStream()) {
                in.write(sql.getBytes(StandardCharsets.UTF_8));
            }
            int status = EmbeddedServer.await(process, INITDB_WAIT);
            String said = Files.readString(output, StandardCharsets.UTF_8);
            Files.writeString(log, said, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            if (status != 0 || said.lines().anyMatch(line -> line.startsWith("ERROR:") || line.startsWith("FATAL:"))) {
                throw new IOException("setting up the embedded PostgreSQL's roles failed (status " + status + "): "
                        + said.lines().filter(line -> line.startsWith("ERROR:") || line.startsWith("FATAL:"))
                        .findFirst().orElse("see " + log));
            }
        } finally {
            Files.deleteIfExists(output);
        }
        PrivateFiles.writeSecret(pgdata.resolve(ROLES_MARKER), passwords.fingerprint() + "\n");
    }

    private static void markInitdbComplete(Path cluster) {
        Path marker = cluster.resolve(INITDB_COMPLETE);
        if (Files.exists(marker)) {
            return;
        }
        try {
            Files.writeString(marker, "initdb finished; written by buzz-scheduled-delivery\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + marker, e);
        }
    }
}

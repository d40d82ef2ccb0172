package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.SchemaMigrator;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The mixed-version guard as the operator meets it: {@code serve} and {@code migrate} refuse a newer schema. */
class SchemaNewerThanBinaryTest {

    @RegisterExtension
    static final ScratchDatabaseExtension DATABASE = ScratchDatabaseExtension.migrated();

    @TempDir
    Path dataDir;

    @BeforeAll
    static void migrateWithANewerBuild() {
        new SchemaMigrator(DATABASE.dataSource(),
                List.of(SchemaMigrator.MIGRATIONS_LOCATION, "classpath:db/newer-build")).migrate();
    }

    @Test
    void serve_databaseMigratedByANewerBuild_refusesToStartWithExitCode3() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int code = main(err).run(new String[] {"serve"});

        assertThat(code).isEqualTo(Main.EXIT_SCHEMA_NEWER);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("serve: database schema is at version 999 but this build only knows migrations up to version")
                .contains("refusing to start");
        assertThat(highestAppliedVersion()).isEqualTo(999);
    }

    @Test
    void migrate_databaseMigratedByANewerBuild_refusesWithExitCode3() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int code = main(err).run(new String[] {"migrate"});

        assertThat(code).isEqualTo(Main.EXIT_SCHEMA_NEWER);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("migrate: database schema is at version 999");
    }

    private Main main(ByteArrayOutputStream err) {
        Map<String, String> env = Map.of("DATABASE_URL", DATABASE.jdbcUrl(), "BUZZ_DATA_DIR", dataDir.toString(),
                "HTTP_PORT", "1");
        return new Main(env, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static int highestAppliedVersion() throws Exception {
        try (Connection connection = DATABASE.dataSource().getConnection(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(
                     "SELECT max(split_part(version, '.', 1)::int) FROM flyway_schema_history"
                             + " WHERE version IS NOT NULL")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}

package buzz.scheduled.adapters.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings the database schema to this build's version with Flyway, and refuses to run against a schema that a
 * newer build already migrated (the mixed-version guard for rolling deploys and rollbacks).
 *
 * <p>Flyway on its own ignores applied migrations it does not know ("future" migrations), so an old binary
 * would happily start on a newer schema and write rows the newer code does not expect. This class checks
 * that first.
 */
public final class SchemaMigrator {

    /** Where this build's migrations live on the classpath. */
    public static final String MIGRATIONS_LOCATION = "classpath:db/migration";

    /**
     * Checksums of applied migrations whose text changed later in comments only, by version: a database migrated by
     * an earlier build records the old checksum, which Flyway's validation would take for an altered migration.
     * V1 and V2 lost their references to documents outside the repository (build 0.1.0, December 2026).
     */
    static final Map<String, Integer> COMMENT_ONLY_EDITS = Map.of("1", 1195883099, "2", -468626906);

    private final DataSource dataSource;
    private final Flyway flyway;

    /** A migrator for this build's migrations on {@code dataSource}. */
    public SchemaMigrator(DataSource dataSource) {
        this(dataSource, List.of(MIGRATIONS_LOCATION));
    }

    /**
     * A migrator reading migrations from {@code locations} (Flyway location strings), for tests that simulate
     * another build.
     */
    public SchemaMigrator(DataSource dataSource, List<String> locations) {
        if (locations.isEmpty()) {
            throw new IllegalArgumentException("at least one migration location is needed");
        }
        this.dataSource = dataSource;
        this.flyway = Flyway.configure()
                .dataSource(dataSource)
                .locations(locations.toArray(String[]::new))
                .validateMigrationNaming(true)
                .cleanDisabled(true)
                .load();
    }

    /**
     * Where the database stands relative to this build, without changing anything.
     *
     * @return the versions and the number of this build's migrations not yet applied
     */
    public SchemaStatus status() {
        MigrationInfoService info = flyway.info();
        return new SchemaStatus(latestApplied(info).map(MigrationVersion::getVersion), latestKnown(info).getVersion(),
                info.pending().length);
    }

    /**
     * Applies this build's pending migrations after checking that the database is not ahead of this build.
     *
     * @return the schema version afterwards and how many migrations ran now
     * @throws SchemaNewerThanBinaryException when the database holds migrations newer than this build knows
     * @throws org.flywaydb.core.api.FlywayException when a migration fails or an applied one was altered
     */
    public MigrationReport migrate() {
        requireNotNewer();
        acceptCommentOnlyEdits();
        MigrateResult result = flyway.migrate();
        SchemaStatus after = status();
        return new MigrationReport(after.databaseVersion().orElse(after.binaryVersion()), result.migrationsExecuted);
    }

    /**
     * Checks that the database's schema is not newer than this build, without migrating.
     *
     * @return the current status (pending migrations may remain)
     * @throws SchemaNewerThanBinaryException when the database holds migrations newer than this build knows
     */
    public SchemaStatus requireNotNewer() {
        MigrationInfoService info = flyway.info();
        MigrationVersion binary = latestKnown(info);
        Optional<MigrationVersion> database = latestApplied(info);
        if (database.isPresent() && database.get().compareTo(binary) > 0) {
            throw new SchemaNewerThanBinaryException(database.get().getVersion(), binary.getVersion());
        }
        return new SchemaStatus(database.map(MigrationVersion::getVersion), binary.getVersion(), info.pending().length);
    }

    /**
     * Records this build's checksum for each applied migration of {@link #COMMENT_ONLY_EDITS} that still carries the
     * checksum of its earlier text (and only then: any other difference still fails validation).
     */
    private void acceptCommentOnlyEdits() {
        Map<String, Integer> edits = new LinkedHashMap<>();
        for (MigrationInfo migration : flyway.info().applied()) {
            if (migration.getVersion() == null || migration.getResolvedChecksum() == null) {
                continue;
            }
            Integer old = COMMENT_ONLY_EDITS.get(migration.getVersion().getVersion());
            if (old != null && old.equals(migration.getAppliedChecksum())
                    && !old.equals(migration.getResolvedChecksum())) {
                edits.put(migration.getVersion().getVersion(), migration.getResolvedChecksum());
            }
        }
        if (edits.isEmpty()) {
            return;
        }
        String table = "\"" + flyway.getConfiguration().getTable().replace("\"", "\"\"") + "\"";
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement(
                     "UPDATE " + table + " SET checksum = ? WHERE version = ? AND checksum = ?")) {
            connection.setAutoCommit(true);
            for (Map.Entry<String, Integer> edit : edits.entrySet()) {
                update.setInt(1, edit.getValue());
                update.setString(2, edit.getKey());
                update.setInt(3, COMMENT_ONLY_EDITS.get(edit.getKey()));
                update.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record the new checksums of comment-only migration edits: "
                    + e.getMessage(), e);
        }
    }

    private static MigrationVersion latestKnown(MigrationInfoService info) {
        return Arrays.stream(info.all())
                .filter(MigrationInfo::isVersioned)
                .filter(m -> m.getState().isResolved())
                .map(MigrationInfo::getVersion)
                .max(Comparator.naturalOrder())
                .orElseThrow(() -> new IllegalStateException("this build ships no migrations under the configured locations"));
    }

    private static Optional<MigrationVersion> latestApplied(MigrationInfoService info) {
        return Arrays.stream(info.applied())
                .filter(MigrationInfo::isVersioned)
                .filter(m -> m.getVersion() != null)
                .map(MigrationInfo::getVersion)
                .max(Comparator.naturalOrder());
    }

    /**
     * Where the database stands.
     *
     * @param databaseVersion newest migration version applied to the database; empty on an empty database
     * @param binaryVersion   newest migration version this build ships
     * @param pending         this build's migrations not yet applied
     */
    public record SchemaStatus(Optional<String> databaseVersion, String binaryVersion, int pending) {
        public SchemaStatus {
            if (databaseVersion == null || binaryVersion == null || binaryVersion.isBlank()) {
                throw new IllegalArgumentException("versions must be present");
            }
            if (pending < 0) {
                throw new IllegalArgumentException("pending must not be negative, got " + pending);
            }
        }
    }

    /**
     * What a migration run did.
     *
     * @param schemaVersion newest applied migration version afterwards
     * @param applied       migrations executed by this run (0 when the schema was already current)
     */
    public record MigrationReport(String schemaVersion, int applied) {
        public MigrationReport {
            if (schemaVersion == null || schemaVersion.isBlank()) {
                throw new IllegalArgumentException("schemaVersion must be present");
            }
            if (applied < 0) {
                throw new IllegalArgumentException("applied must not be negative, got " + applied);
            }
        }
    }
}

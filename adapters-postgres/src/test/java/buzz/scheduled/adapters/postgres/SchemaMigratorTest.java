package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.postgres.SchemaMigrator.MigrationReport;
import buzz.scheduled.adapters.postgres.SchemaMigrator.SchemaStatus;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SchemaMigratorTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    private static final List<String> NEWER_BUILD =
            List.of(SchemaMigrator.MIGRATIONS_LOCATION, "classpath:db/newer-build");

    @BeforeEach
    void emptyTheDatabase() {
        db.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    }

    @Test
    void status_emptyDatabase_reportsNoVersionAndEveryMigrationPending() {
        SchemaStatus status = new SchemaMigrator(db.dataSource()).status();

        assertThat(status.databaseVersion()).isEmpty();
        assertThat(status.pending()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void migrate_emptyDatabase_appliesEveryMigrationAndCreatesTheTables() {
        SchemaMigrator migrator = new SchemaMigrator(db.dataSource());
        int pending = migrator.status().pending();

        MigrationReport report = migrator.migrate();

        assertThat(report.applied()).isEqualTo(pending);
        assertThat(report.schemaVersion()).isEqualTo(migrator.status().binaryVersion());
        assertThat(migrator.status().pending()).isZero();
        assertThat(db.queryColumn("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"))
                .containsExactly("channel_tombstone", "delivery_attempt", "due_notice_horizon", "flyway_schema_history",
                        "idempotency_key", "job_request", "nip98_replay", "notice_outbox", "notice_sent",
                        "notice_switch", "owner_settings", "scheduled_message", "scheduled_message_revision");
    }

    @Test
    void migrate_databaseMigratedBeforeTheCommentOnlyEdits_acceptsThemAndRecordsTheNewChecksums() {
        SchemaMigrator migrator = new SchemaMigrator(db.dataSource());
        migrator.migrate();
        List<String> current = db.queryColumn(
                "SELECT version || '=' || checksum FROM flyway_schema_history WHERE version IN ('1', '2') ORDER BY 1");
        SchemaMigrator.COMMENT_ONLY_EDITS.forEach((version, old) -> db.execute(
                "UPDATE flyway_schema_history SET checksum = " + old + " WHERE version = '" + version + "'"));

        MigrationReport again = migrator.migrate();

        assertThat(again.applied()).isZero();
        assertThat(db.queryColumn(
                "SELECT version || '=' || checksum FROM flyway_schema_history WHERE version IN ('1', '2') ORDER BY 1"))
                .isEqualTo(current).hasSize(2);
        assertThat(current).doesNotContain("1=" + SchemaMigrator.COMMENT_ONLY_EDITS.get("1"));
    }

    @Test
    void migrate_appliedMigrationWithAnyOtherChecksum_isStillRefusedAsAltered() {
        SchemaMigrator migrator = new SchemaMigrator(db.dataSource());
        migrator.migrate();
        db.execute("UPDATE flyway_schema_history SET checksum = 12345 WHERE version = '1'");

        assertThatThrownBy(migrator::migrate).isInstanceOf(org.flywaydb.core.api.FlywayException.class)
                .hasMessageContaining("checksum");
        assertThat(db.queryColumn("SELECT checksum::text FROM flyway_schema_history WHERE version = '1'"))
                .containsExactly("12345");
    }

    @Test
    void migrate_currentDatabase_appliesNothing() {
        SchemaMigrator migrator = new SchemaMigrator(db.dataSource());
        MigrationReport first = migrator.migrate();

        MigrationReport second = migrator.migrate();

        assertThat(second.applied()).isZero();
        assertThat(second.schemaVersion()).isEqualTo(first.schemaVersion());
    }

    @Test
    void migrate_databaseMigratedByNewerBuild_refusesNamingBothVersionsAndChangesNothing() {
        new SchemaMigrator(db.dataSource(), NEWER_BUILD).migrate();
        List<String> historyBefore = db.queryColumn("SELECT version FROM flyway_schema_history ORDER BY installed_rank");
        SchemaMigrator thisBuild = new SchemaMigrator(db.dataSource());
        String binaryVersion = thisBuild.status().binaryVersion();

        assertThatThrownBy(thisBuild::migrate)
                .isInstanceOf(SchemaNewerThanBinaryException.class)
                .hasMessageContaining("database schema is at version 999")
                .hasMessageContaining("only knows migrations up to version " + binaryVersion)
                .satisfies(e -> {
                    SchemaNewerThanBinaryException refusal = (SchemaNewerThanBinaryException) e;
                    assertThat(refusal.databaseVersion()).isEqualTo("999");
                    assertThat(refusal.binaryVersion()).isEqualTo(binaryVersion);
                });
        assertThat(db.queryColumn("SELECT version FROM flyway_schema_history ORDER BY installed_rank"))
                .isEqualTo(historyBefore);
    }

    @Test
    void requireNotNewer_databaseMigratedByNewerBuild_refuses() {
        new SchemaMigrator(db.dataSource(), NEWER_BUILD).migrate();

        assertThatThrownBy(() -> new SchemaMigrator(db.dataSource()).requireNotNewer())
                .isInstanceOf(SchemaNewerThanBinaryException.class)
                .hasMessageContaining("999");
    }

    @Test
    void requireNotNewer_olderDatabase_reportsPendingMigrationsWithoutApplyingThem() {
        SchemaStatus status = new SchemaMigrator(db.dataSource()).requireNotNewer();

        assertThat(status.databaseVersion()).isEmpty();
        assertThat(status.pending()).isPositive();
        assertThat(db.queryColumn("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).isEmpty();
    }


}

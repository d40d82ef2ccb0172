package buzz.scheduled.adapters.postgres.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

class ScratchDatabaseExtensionTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    // Written by Probe while it runs inside the nested launcher.
    static volatile String probeDatabase;
    static volatile List<String> probeTables;
    static volatile boolean probeDatabaseExisted;

    @Test
    void migrated_duringTheClass_isAFreshDatabaseWithTheSchema() {
        assertThat(db.databaseName()).matches("buzz_test_[0-9a-f]{16}");
        assertThat(db.queryColumn("SELECT current_database()")).containsExactly(db.databaseName());
        assertThat(db.queryColumn("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
                .contains("scheduled_message", "flyway_schema_history");
        assertThat(db.jdbcUrl()).startsWith("jdbc:postgresql://").contains("/" + db.databaseName() + "?");
        assertThat(db.postgresUrl()).startsWith("postgres://").endsWith("/" + db.databaseName());
    }

    @Test
    void afterAll_probeClassFinished_dropsItsDatabase() {
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();

        launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(Probe.class)).build(), summary);

        assertThat(summary.getSummary().getTestsSucceededCount()).isEqualTo(1);
        assertThat(probeDatabase).isNotEqualTo(db.databaseName()).matches("buzz_test_[0-9a-f]{16}");
        assertThat(probeDatabaseExisted).isTrue();
        assertThat(probeTables).isEmpty();
        assertThat(db.queryLong("SELECT count(*) FROM pg_database WHERE datname = ?", probeDatabase))
                .as("databases named %s after the probe class", probeDatabase).isZero();
    }

    @Test
    void truncateAllTables_rowsPresent_emptiesTablesButKeepsMigrationHistory() {
        db.execute("INSERT INTO channel_tombstone (channel) VALUES ('general')");

        db.truncateAllTables();

        assertThat(db.queryColumn("SELECT count(*) FROM channel_tombstone")).containsExactly("0");
        assertThat(db.queryLong("SELECT count(*) FROM flyway_schema_history")).isPositive();
    }

    /** Run only through the launcher above (nested classes are not picked up by the build's test scan). */
    static class Probe {
        @RegisterExtension
        static final ScratchDatabaseExtension probeDb = ScratchDatabaseExtension.empty();

        @Test
        void records() {
            probeDatabase = probeDb.databaseName();
            probeDatabaseExisted = probeDb.queryColumn("SELECT current_database()").equals(List.of(probeDatabase));
            probeTables = probeDb.queryColumn("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
        }
    }
}

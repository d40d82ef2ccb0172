package buzz.scheduled.adapters.postgres.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
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
    void migrated_duringTheClass_isAFreshDatabaseWithTheSchema() throws SQLException {
        assertThat(db.databaseName()).matches("buzz_test_[0-9a-f]{16}");
        assertThat(strings("SELECT current_database()")).containsExactly(db.databaseName());
        assertThat(strings("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
                .contains("scheduled_message", "flyway_schema_history");
        assertThat(db.jdbcUrl()).startsWith("jdbc:postgresql://").contains("/" + db.databaseName() + "?");
        assertThat(db.postgresUrl()).startsWith("postgres://").endsWith("/" + db.databaseName());
    }

    @Test
    void afterAll_probeClassFinished_dropsItsDatabase() throws SQLException {
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();

        launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(Probe.class)).build(), summary);

        assertThat(summary.getSummary().getTestsSucceededCount()).isEqualTo(1);
        assertThat(probeDatabase).isNotEqualTo(db.databaseName()).matches("buzz_test_[0-9a-f]{16}");
        assertThat(probeDatabaseExisted).isTrue();
        assertThat(probeTables).isEmpty();
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement s = c.prepareStatement("SELECT count(*) FROM pg_database WHERE datname = ?")) {
            s.setString(1, probeDatabase);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).as("databases named %s after the probe class", probeDatabase).isZero();
            }
        }
    }

    @Test
    void truncateAllTables_rowsPresent_emptiesTablesButKeepsMigrationHistory() throws SQLException {
        execute("INSERT INTO channel_tombstone (channel) VALUES ('general')");

        db.truncateAllTables();

        assertThat(strings("SELECT count(*) FROM channel_tombstone")).containsExactly("0");
        assertThat(Integer.parseInt(strings("SELECT count(*) FROM flyway_schema_history").get(0))).isPositive();
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static List<String> strings(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> values = new ArrayList<>();
            while (rs.next()) {
                values.add(rs.getString(1));
            }
            return values;
        }
    }

    /** Run only through the launcher above (nested classes are not picked up by the build's test scan). */
    static class Probe {
        @RegisterExtension
        static final ScratchDatabaseExtension probeDb = ScratchDatabaseExtension.empty();

        @Test
        void records() throws SQLException {
            probeDatabase = probeDb.databaseName();
            try (Connection c = probeDb.dataSource().getConnection(); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT current_database()")) {
                    rs.next();
                    probeDatabaseExisted = rs.getString(1).equals(probeDatabase);
                }
                List<String> tables = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")) {
                    while (rs.next()) {
                        tables.add(rs.getString(1));
                    }
                }
                probeTables = tables;
            }
        }
    }
}

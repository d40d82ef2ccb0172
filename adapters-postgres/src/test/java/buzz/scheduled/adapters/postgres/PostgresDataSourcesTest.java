package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.io.IOException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresDataSourcesTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    private static final PoolSettings SMALL = new PoolSettings(2, Duration.ofSeconds(2), "test-pool");

    @Test
    void create_libpqUrl_connectsToThatDatabase() throws SQLException {
        try (HikariDataSource pool = PostgresDataSources.create(db.postgresUrl(), SMALL)) {
            assertThat(currentDatabase(pool)).isEqualTo(db.databaseName());
            assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
            assertThat(pool.getPoolName()).isEqualTo("test-pool");
        }
    }

    @Test
    void create_jdbcUrl_connectsToThatDatabase() throws SQLException {
        try (HikariDataSource pool = PostgresDataSources.create(db.jdbcUrl(), SMALL)) {
            assertThat(currentDatabase(pool)).isEqualTo(db.databaseName());
        }
    }

    @Test
    void create_nobodyListening_failsAtCreation() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        String url = "postgres://nobody@127.0.0.1:" + closedPort + "/nothing";

        assertThatThrownBy(() -> PostgresDataSources.create(url, SMALL))
                .isInstanceOf(HikariPool.PoolInitializationException.class);
    }

    @Test
    void create_exhaustedPool_failsAfterTheConnectionTimeoutInsteadOfHanging() throws SQLException {
        PoolSettings one = new PoolSettings(1, Duration.ofMillis(300), "one");
        try (HikariDataSource pool = PostgresDataSources.create(db.postgresUrl(), one);
                Connection held = pool.getConnection()) {
            long started = System.nanoTime();

            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class);

            assertThat(held.isValid(1)).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void poolSettings_outOfRange_namesTheValue() {
        assertThatThrownBy(() -> new PoolSettings(0, Duration.ofSeconds(1), "p"))
                .hasMessageContaining("maximumPoolSize must be at least 1, got 0");
        assertThatThrownBy(() -> new PoolSettings(1, Duration.ofMillis(10), "p"))
                .hasMessageContaining("connectionTimeout must be at least 250 ms");
        assertThatThrownBy(() -> new PoolSettings(1, Duration.ofSeconds(1), " "))
                .hasMessageContaining("poolName must not be blank");
    }

    private static String currentDatabase(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_database()")) {
            rs.next();
            return rs.getString(1);
        }
    }
}

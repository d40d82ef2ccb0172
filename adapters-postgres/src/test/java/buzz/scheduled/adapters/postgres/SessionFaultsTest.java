package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.adapters.postgres.testing.ForwardingDataSource;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.domain.nostr.Signature;
import com.zaxxer.hikari.HikariDataSource;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pool's handling of sessions PostgreSQL will not serve any more, against a real server: every session ended at
 * once while the server stays up (docs/failure-scenarios.md F28), and sessions that keep a read-only default after the
 * database takes writes again (F27). A store's call that meets such a session runs once more on a new one.
 */
class SessionFaultsTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String POOL_APPLICATION = "buzz-scheduled-delivery";

    private final SessionFaults faults = new SessionFaults();
    private final AtomicInteger refusedWrites = new AtomicInteger();
    private HikariDataSource pool;

    @BeforeEach
    void openPool() {
        faults.whenReadOnly(refusedWrites::incrementAndGet);
        pool = PostgresDataSources.create(DatabaseUrl.parse(db.jdbcUrl()),
                new PoolSettings(4, Duration.ofSeconds(5), "session-faults-test"), faults);
    }

    @AfterEach
    void closePool() {
        pool.close();
        db.executeOnServer("ALTER DATABASE " + db.databaseName() + " RESET default_transaction_read_only");
    }

    @Test
    void everyPooledSessionTerminatedWhileOneIsInUse_theCallsRetryOnceOnNewSessions_andAllAnswer()
            throws SQLException {
        AtomicInteger terminated = new AtomicInteger(-1);
        // The sessions end right after the store borrowed its connection: what a failover does to a request.
        DataSource killingOnce = new ForwardingDataSource(pool) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = pool.getConnection();
                if (terminated.get() < 0) {
                    terminated.set(db.terminateSessions(POOL_APPLICATION));
                }
                return connection;
            }
        };
        PostgresReplayStore store = new PostgresReplayStore(killingOnce);
        holdAll(4);

        List<Boolean> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            answers.add(store.firstUse(signature(), Instant.now().plusSeconds(60)));
        }

        assertThat(terminated).as("every session of the pool").hasValue(4);
        assertThat(answers).as("each call answered, none failed on a dead session").containsOnly(true).hasSize(4);
        assertThat(faults.evictions()).as("the whole pool was replaced when the first dead session was met")
                .isPositive();
        assertThat(refusedWrites).hasValue(0);
    }

    @Test
    void sessionsKeepTheirReadOnlyDefault_aWriteRetriesOnANewSession_onceTheDatabaseTakesWritesAgain()
            throws SQLException {
        PostgresReplayStore store = new PostgresReplayStore(pool);
        db.executeOnServer("ALTER DATABASE " + db.databaseName() + " SET default_transaction_read_only = on");
        pool.getHikariPoolMXBean().softEvictConnections();
        holdAll(4);

        assertThatThrownBy(() -> store.firstUse(signature(), Instant.now().plusSeconds(60)))
                .as("read-only on the new session too: the database is read-only")
                .satisfies(e -> assertThat(SessionFaults.faultOf(e)).contains(SessionFaults.Fault.READ_ONLY));
        assertThat(refusedWrites).as("reported for the database watch").hasValueGreaterThanOrEqualTo(1);

        holdAll(4); // the pool's new sessions, all made while the database was read-only
        db.executeOnServer("ALTER DATABASE " + db.databaseName() + " RESET default_transaction_read_only");

        assertThat(store.firstUse(signature(), Instant.now().plusSeconds(60)))
                .as("the stale read-only session is replaced and the write retried").isTrue();
        assertThat(store.firstUse(signature(), Instant.now().plusSeconds(60))).isTrue();
    }

    @Test
    void faultOf_tellsEndedAndReadOnlySessionsFromOtherFailures() {
        assertThat(SessionFaults.faultOf(new IllegalStateException("wrapped", new SQLException("terminating connection"
                + " due to administrator command", "57P01")))).contains(SessionFaults.Fault.ENDED);
        assertThat(SessionFaults.faultOf(new SQLException("terminating connection due to idle-session timeout",
                "57P05"))).contains(SessionFaults.Fault.ENDED);
        assertThat(SessionFaults.faultOf(new SQLException("An I/O error occurred", "08006")))
                .contains(SessionFaults.Fault.ENDED);
        assertThat(SessionFaults.faultOf(new SQLException("cannot execute INSERT in a read-only transaction",
                "25006"))).contains(SessionFaults.Fault.READ_ONLY);
        assertThat(SessionFaults.faultOf(new SQLException("Connection refused", "08001")))
                .as("no connection at all: a retry would only wait").isEmpty();
        assertThat(SessionFaults.faultOf(new SQLException("duplicate key", "23505"))).isEmpty();
        assertThat(SessionFaults.faultOf(new IllegalStateException("no SQL at all"))).isEmpty();
    }

    /** Borrows {@code n} connections at once and gives them back, so the pool holds that many open sessions. */
    private void holdAll(int n) throws SQLException {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Connection connection = pool.getConnection();
                connection.createStatement().execute("SELECT 1");
                held.add(connection);
            }
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
    }

    private static Signature signature() {
        byte[] bytes = new byte[64];
        RANDOM.nextBytes(bytes);
        return new Signature(HexFormat.of().formatHex(bytes));
    }
}

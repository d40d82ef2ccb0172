package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.DatabaseProbe.Reading;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The database probe against a real PostgreSQL, a closed port, a killed session (docs/failure-scenarios.md F28) and
 * a database made read-only for new sessions (F27).
 */
class PostgresDatabaseProbeTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @Test
    void read_reachableDatabase_answersItsClock() {
        try (PostgresDatabaseProbe probe = PostgresDatabaseProbe.of(DatabaseUrl.parse(db.jdbcUrl()),
                Duration.ofSeconds(1))) {
            Instant before = Instant.now();
            Reading reading = probe.read();
            Instant after = Instant.now();

            assertThat(reading).isInstanceOf(Reading.Answered.class);
            Instant database = ((Reading.Answered) reading).databaseNow();
            // Same host: the database's clock lies within the round trip, give or take clock granularity.
            assertThat(database).isBetween(before.minusMillis(50), after.plusMillis(50));
        }
    }

    @Test
    void read_nothingListensOnThePort_failsWithinTheTimeoutWithAReason() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            closed = socket.getLocalPort();
        }
        try (PostgresDatabaseProbe probe = PostgresDatabaseProbe.of(new DatabaseUrl("jdbc:postgresql://127.0.0.1:"
                + closed + "/postgres", Optional.of("postgres"), Optional.empty()), Duration.ofSeconds(1))) {
            long started = System.nanoTime();
            Reading reading = probe.read();
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(reading).isInstanceOf(Reading.Failed.class);
            assertThat(((Reading.Failed) reading).reason()).containsIgnoringCase("refused");
            assertThat(took).isLessThan(Duration.ofSeconds(2));
        }
    }

    @Test
    void read_afterItsSessionWasTerminated_answersAtOnceOnANewSession() {
        try (PostgresDatabaseProbe probe = PostgresDatabaseProbe.of(DatabaseUrl.parse(db.jdbcUrl()),
                Duration.ofSeconds(1))) {
            assertThat(probe.read()).isInstanceOf(Reading.Answered.class);
            assertThat(db.terminateSessions(PostgresDatabaseProbe.APPLICATION_NAME)).isEqualTo(1);

            Reading afterKill = probe.read();

            assertThat(afterKill).as("a killed session while the server answers is no outage (F28)")
                    .isInstanceOf(Reading.Answered.class);
        }
    }

    @Test
    void read_databaseReadOnlyForNewSessions_answersReadOnly_andTakesWritesAgainOnANewSession() {
        try (PostgresDatabaseProbe probe = PostgresDatabaseProbe.of(DatabaseUrl.parse(db.jdbcUrl()),
                Duration.ofSeconds(1))) {
            assertThat(probe.read()).isInstanceOf(Reading.Answered.class);
            db.executeOnServer("ALTER DATABASE " + db.databaseName() + " SET default_transaction_read_only = on");
            try {
                assertThat(probe.read()).as("the probe's session started writable").isInstanceOf(
                        Reading.Answered.class);
                probe.renewSession();

                Reading readOnly = probe.read();

                assertThat(readOnly).isInstanceOf(Reading.ReadOnly.class);
                assertThat(((Reading.ReadOnly) readOnly).reason()).contains("default_transaction_read_only");
            } finally {
                db.executeOnServer("ALTER DATABASE " + db.databaseName() + " RESET default_transaction_read_only");
            }
            assertThat(probe.read()).as("a read-only answer renews the session, which now takes writes")
                    .isInstanceOf(Reading.Answered.class);
        }
    }
}

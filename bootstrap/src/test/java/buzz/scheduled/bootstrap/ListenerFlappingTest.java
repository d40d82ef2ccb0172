package buzz.scheduled.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.testing.Poll;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/failure-scenarios.md F33: the listener's session of a running {@code serve} (its own JVM) is ended five times in
 * a row, each time as soon as it has reconnected, as a flapping network or a pooler in the way would. The log says so
 * once at WARN when the outage begins (the second drop within 10 s) and once at INFO when the listener has listened
 * steadily for 10 s again, with the number of drops; not a WARN and an INFO per reconnect.
 */
class ListenerFlappingTest {

    private static final int DROPS = 5;

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.empty();

    @TempDir
    Path work;

    @RegisterExtension
    final ServeProcesses processes = new ServeProcesses();

    @Test
    void f33_listenerSessionEndedFiveTimesInARow_oneWarningWhenItBegins_oneInfoWithTheCountWhenItIsOver()
            throws Exception {
        int httpPort = ServeProcesses.freePort();
        Path log = work.resolve("serve.log");
        Process serve = processes.start(Map.of("BUZZ_DATA_DIR", work.resolve("var").toString(),
                "HTTP_PORT", Integer.toString(httpPort), "DATABASE_URL", db.postgresUrl()), log);
        ServeProcesses.awaitHealthy(serve, httpPort, log);
        Poll.until("LISTEN", Duration.ofSeconds(15),
                () -> ServeProcesses.output(log).contains("listening on buzz_scheduled_due for due work"));

        String previous = listenerSession();
        for (int drop = 1; drop <= DROPS; drop++) {
            String ended = previous;
            // At least its session; a test notification's sender under way may go with it (a failed attempt).
            assertThat(db.terminateSessions("buzz-due-listener")).as("drop " + drop).isPositive();
            Poll.until("the listener's new session after drop " + drop, Duration.ofSeconds(15),
                    () -> !listenerSession().isEmpty() && !listenerSession().equals(ended));
            previous = listenerSession();
        }
        Poll.until("the outage to be reported over", Duration.ofSeconds(40),
                () -> ServeProcesses.output(log).contains("for due work again"));

        String output = ServeProcesses.output(log);
        System.out.println("F33 log lines: " + output.lines().filter(line -> line.contains("PostgresDueWorkSignal"))
                .toList());
        assertThat(ServeProcesses.occurrences(output, "due-work listener is down")).as("WARN lines").isEqualTo(1);
        assertThat(ServeProcesses.occurrences(output, "for due work again")).as("INFO lines").isEqualTo(1);
        assertThat(output.lines().filter(line -> line.contains("for due work again")).findFirst().orElseThrow())
                .as("the INFO line counts what the outage held").containsPattern("with [2-5] drop\\(s\\) and [0-3]"
                        + " failed attempt\\(s\\)");
    }

    /**
     * The pid of the listener's session once it listens (its last statement {@code LISTEN}, no test notification
     * under way), or empty.
     */
    private static String listenerSession() {
        try {
            return ServeProcesses.query(db.jdbcUrl(), "SELECT CASE WHEN count(*) = 1 AND bool_and(query = 'LISTEN"
                    + " buzz_scheduled_due') THEN min(pid)::text ELSE '' END FROM pg_stat_activity"
                    + " WHERE application_name = 'buzz-due-listener' AND datname = current_database()");
        } catch (SQLException e) {
            return "";
        }
    }
}

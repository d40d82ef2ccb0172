package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.DatabaseStatusUseCase;
import buzz.scheduled.application.port.in.DatabaseStatusUseCase.DatabaseStatus;
import java.util.Locale;

/**
 * The database gauges of {@code GET /metrics} (Prometheus text), read from memory: {@code buzz_database_up} (1 when
 * the last check answered in time) and {@code buzz_clock_skew_seconds} (this host's clock minus the database's,
 * positive when this host is ahead; absent before the first measurement).
 */
final class DatabaseMetrics {
    private DatabaseMetrics() {
    }

    static String render(DatabaseStatusUseCase source) {
        DatabaseStatus status = source.databaseStatus();
        StringBuilder out = new StringBuilder();
        out.append("# HELP buzz_database_up Whether the database answered its last check in time (1) or not (0).\n");
        out.append("# TYPE buzz_database_up gauge\n");
        out.append("buzz_database_up ").append(status.reachable() ? 1 : 0).append('\n');
        out.append("# HELP buzz_clock_skew_seconds This host's clock minus the database's clock (positive: this host"
                + " is ahead), measured around a round trip.\n");
        out.append("# TYPE buzz_clock_skew_seconds gauge\n");
        status.clockSkew().ifPresent(skew -> out.append("buzz_clock_skew_seconds ")
                .append(String.format(Locale.ROOT, "%.3f", skew.toNanos() / 1e9)).append('\n'));
        return out.toString();
    }
}

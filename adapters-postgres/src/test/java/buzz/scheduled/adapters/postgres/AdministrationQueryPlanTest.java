package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.in.ReservationsUseCase.Reservations;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jooq.conf.ParamType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retention pruning and the reservation figures stay off the terminal rows that dominate a long-running table
 * (docs/failure-scenarios.md F10): pruning walks the terminal index in small batches, the reservations read only
 * pending rows.
 */
class AdministrationQueryPlanTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @BeforeAll
    static void fillTheTable() throws SQLException {
        // 100 000 terminal rows (60 000 finished 8 days ago, 40 000 an hour ago) and 10 000 scheduled rows.
        insertRows(60_000, "published", false, "now() - interval '8 days'");
        insertRows(40_000, "cancelled", false, "now() - interval '1 hour'");
        insertRows(10_000, "scheduled", true, "NULL");
        execute("ANALYZE scheduled_message");
    }

    private static void insertRows(int n, String state, boolean withEvent, String finishedAt) throws SQLException {
        String event = withEvent
                ? "json_build_object('id', r.event_id, 'pubkey', r.owner, 'created_at', extract(epoch FROM r.due_at)::bigint,"
                        + " 'kind', 9, 'tags', json_build_array(json_build_array('h', r.channel)), 'content', 'filler',"
                        + " 'sig', repeat('5', 128))::text"
                : "NULL";
        execute("INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at,"
                + " attempts, finished_at)"
                + " SELECT gen_random_uuid(), r.owner, r.channel, 1, '" + state + "', r.event_id, " + event + ", r.due_at,"
                + " 1, " + finishedAt
                + " FROM (SELECT lpad(to_hex(g % 1000), 64, '0') AS owner, 'channel-' || (g % 50) AS channel,"
                + " lpad(to_hex(g), 64, '0') AS event_id,"
                + " date_trunc('second', now()) + (g % 7200 - 3600) * interval '1 second' AS due_at"
                + " FROM generate_series(1, " + n + ") g) r");
    }

    @Test
    void pruneStatement_tableFullOfTerminalRows_walksTheTerminalIndex() throws SQLException {
        PostgresChannelAdministration administration = new PostgresChannelAdministration(db.dataSource());

        String plan = explain(administration.pruneStatement(Duration.ofDays(7), 500).getSQL(ParamType.INLINED));

        assertThat(plan)
                .contains("InitPlan")
                .contains("LockRows")
                .contains("scheduled_message_terminal_idx")
                .doesNotContain("Seq Scan");
    }

    @Test
    void reservationsQuery_tableFullOfTerminalRows_readsOnlyPendingRows() throws SQLException {
        PostgresChannelAdministration administration = new PostgresChannelAdministration(db.dataSource());

        String plan = explain(administration.reservationsQuery().getSQL(ParamType.INLINED));
        int dueBefore = count("SELECT count(*) FROM scheduled_message WHERE state = 'scheduled' AND due_at <= now()");
        Reservations reservations = administration.reservations();
        int dueAfter = count("SELECT count(*) FROM scheduled_message WHERE state = 'scheduled' AND due_at <= now()");

        assertThat(plan).doesNotContain("Seq Scan");
        assertThat(reservations.overdue()).isBetween((long) dueBefore, (long) dueAfter);
        assertThat(reservations.heldBefore()).isPresent();
    }

    @Test
    void pruneTerminal_inBatches_deletesExactlyTheOldRowsEachBatchBounded() throws SQLException {
        PostgresChannelAdministration administration = new PostgresChannelAdministration(db.dataSource());
        List<Long> batchMillis = new ArrayList<>();
        int total = 0;
        int batches = 0;
        while (true) {
            long started = System.nanoTime();
            int deleted = administration.pruneTerminal(Duration.ofDays(7), 5_000);
            batchMillis.add((System.nanoTime() - started) / 1_000_000);
            assertThat(deleted).isLessThanOrEqualTo(5_000);
            total += deleted;
            batches++;
            if (deleted < 5_000) {
                break;
            }
        }

        assertThat(total).isEqualTo(60_000);
        assertThat(batches).isEqualTo(13);
        assertThat(count("SELECT count(*) FROM scheduled_message WHERE state = 'cancelled'")).isEqualTo(40_000);
        assertThat(count("SELECT count(*) FROM scheduled_message WHERE state = 'scheduled'")).isEqualTo(10_000);
        System.out.println("prune batch times (ms, 5 000 rows each): " + batchMillis);
    }

    private static String explain(String sql) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static int count(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}

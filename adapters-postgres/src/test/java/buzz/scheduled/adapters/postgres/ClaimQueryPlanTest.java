package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.conf.ParamType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The claim statement reads only claimable rows through the partial index, even when terminal rows dominate
 * the table (SCENARIOS F10), and runs its locking subquery once.
 */
class ClaimQueryPlanTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @BeforeAll
    static void fillTheTable() {
        // 100 000 terminal rows, 10 000 scheduled (about half of them due), 1 000 in flight.
        insertRows(100_000, "published", false, "NULL", "NULL", "now()");
        insertRows(10_000, "scheduled", true, "NULL", "NULL", "NULL");
        insertRows(1_000, "claimed", true, "nextval('fencing_token_seq')", "now() + interval '1 minute'", "NULL");
        db.execute("ANALYZE scheduled_message");
    }

    private static void insertRows(int n, String state, boolean withEvent, String token, String lease,
                                   String finishedAt) {
        String event = withEvent
                ? "json_build_object('id', r.event_id, 'pubkey', r.owner, 'created_at', extract(epoch FROM r.due_at)::bigint,"
                        + " 'kind', 9, 'tags', json_build_array(json_build_array('h', r.channel)), 'content', 'filler',"
                        + " 'sig', repeat('5', 128))::text"
                : "NULL";
        db.execute("INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at,"
                + " fencing_token, lease_until, attempts, finished_at)"
                + " SELECT gen_random_uuid(), r.owner, r.channel, 1, '" + state + "', r.event_id, " + event + ", r.due_at, "
                + token + ", " + lease + ", 1, " + finishedAt
                + " FROM (SELECT lpad(to_hex(g % 1000), 64, '0') AS owner, 'channel-' || (g % 50) AS channel,"
                + " lpad(to_hex(g), 64, '0') AS event_id,"
                + " date_trunc('second', now()) + (g % 7200 - 3600) * interval '1 second' AS due_at"
                + " FROM generate_series(1, " + n + ") g) r");
    }

    @Test
    void claimStatement_tableFullOfTerminalRows_locksCandidatesThroughThePartialIndexOnce() {
        PostgresScheduleStore store = new PostgresScheduleStore(db.dataSource());
        String claim = store.claimStatement(100, Duration.ofMinutes(1)).getSQL(ParamType.INLINED);

        String plan = explain(claim);

        assertThat(claim).containsIgnoringCase("for update skip locked").containsIgnoringCase("nextval");
        assertThat(plan)
                .contains("InitPlan")
                .contains("LockRows")
                .contains("Index Scan using scheduled_message_claimable_idx on scheduled_message candidate")
                .doesNotContain("Seq Scan")
                .doesNotContain("Semi Join");
    }

    @Test
    void claimStatement_preparedOnTheServer_genericPlanStillUsesThePartialIndex() throws Exception {
        PostgresScheduleStore store = new PostgresScheduleStore(db.dataSource());

        String plan = GenericPlan.explain(db.dataSource(), store.claimStatement(100, Duration.ofMinutes(1)));

        assertThat(plan)
                .contains("Index Scan using scheduled_message_claimable_idx on scheduled_message candidate")
                .doesNotContain("Seq Scan");
    }

    @Test
    void admissionLimitReads_preparedOnTheServer_genericPlanCountsThroughThePendingIndexes() throws Exception {
        Instant windowStart = Instant.now().truncatedTo(ChronoUnit.HOURS);

        String plan = GenericPlan.explain(db.dataSource(), PostgresScheduleStore.limitFacts(
                DSL.using(db.dataSource(), SQLDialect.POSTGRES), "0".repeat(61) + "abc", "channel-7", windowStart,
                windowStart.plus(Duration.ofMinutes(5))));

        assertThat(plan)
                .contains("scheduled_message_owner_pending_idx")
                .contains("scheduled_message_channel_pending_idx")
                .doesNotContain("Seq Scan on scheduled_message");
    }

    @Test
    void nextDueAt_preparedOnTheServer_genericPlanReadsOnlyThePartialIndexes() throws Exception {
        PostgresScheduleStore store = new PostgresScheduleStore(db.dataSource());

        String plan = GenericPlan.explain(db.dataSource(), store.nextDueAtQuery());

        assertThat(plan).contains("scheduled_message_claimable_idx").doesNotContain("Seq Scan");
    }

    @Test
    void claimDue_onTheFilledTable_claimsExactlyTheLimitOfDueRows() {
        PostgresScheduleStore store = new PostgresScheduleStore(db.dataSource());
        long dueBefore = db.queryLong("SELECT count(*) FROM scheduled_message WHERE state = 'scheduled' AND due_at <= now()");

        int claimed = store.claimDue(100, Duration.ofMinutes(1)).size();

        assertThat(dueBefore).isGreaterThan(100);
        assertThat(claimed).isEqualTo(100);
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE state = 'claimed'")).isEqualTo(1_100);
    }

    private static String explain(String sql) {
        return String.join("\n", db.queryColumn("EXPLAIN " + sql));
    }


}

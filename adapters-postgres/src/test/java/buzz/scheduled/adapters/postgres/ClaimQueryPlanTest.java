package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.DeliveryStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hot statements' plans on a table the way a busy relay's looks: 100 000 terminal rows, 10 000 scheduled (about
 * half of them due) and 1 000 in flight. Each is checked as pgjdbc runs it once prepared on the server, with bind
 * parameters under {@code plan_cache_mode = force_generic_plan}: no statement may scan the table, the claim reads the
 * claimable partial index and updates by TID, and the array-driven writes look their rows up by primary key.
 */
class ClaimQueryPlanTest {
    /** The ids and tokens of the 1 000 rows in flight, as array literals. */
    private static String manyIds;
    private static String manyTokens;

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @BeforeAll
    static void fillTheTable() {
        insertRows(100_000, "published", false, "NULL", "NULL", "now()");
        insertRows(10_000, "scheduled", true, "NULL", "NULL", "NULL");
        insertRows(1_000, "sending", true, "nextval('fencing_token_seq')", "now() + interval '1 minute'", "NULL");
        db.execute("ANALYZE scheduled_message");
        manyIds = "'" + db.queryColumn("SELECT array_agg(id ORDER BY id)::text FROM scheduled_message"
                + " WHERE state = 'sending'").get(0) + "'::uuid[]";
        manyTokens = "'" + db.queryColumn("SELECT array_agg(fencing_token ORDER BY id)::text FROM scheduled_message"
                + " WHERE state = 'sending'").get(0) + "'::bigint[]";
    }

    private static void insertRows(int n, String state, boolean withEvent, String token, String lease,
                                   String finishedAt) {
        String event = withEvent
                ? "json_build_object('id', r.event_id, 'pubkey', r.owner, 'created_at', extract(epoch FROM r.due_at)::bigint,"
                        + " 'kind', 9, 'tags', json_build_array(json_build_array('h', r.channel)), 'content', 'filler',"
                        + " 'sig', repeat('5', 128))::text"
                : "NULL";
        // Rows in flight are due; the others spread over an hour either side of now.
        String due = state.equals("sending") ? "date_trunc('second', now()) - (g % 600) * interval '1 second'"
                : "date_trunc('second', now()) + (g % 7200 - 3600) * interval '1 second'";
        db.execute("INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at,"
                + " fencing_token, lease_until, attempts, finished_at)"
                + " SELECT gen_random_uuid(), r.owner, r.channel, 1, '" + state + "', r.event_id, " + event + ", r.due_at, "
                + token + ", " + lease + ", 1, " + finishedAt
                + " FROM (SELECT lpad(to_hex(g % 1000), 64, '0') AS owner, 'channel-' || (g % 50) AS channel,"
                + " lpad(to_hex(g::bigint + " + (state.hashCode() & 0xffff) + "::bigint * 1000000), 64, '0') AS event_id,"
                + " " + due + " AS due_at"
                + " FROM generate_series(1, " + n + ") g) r");
    }

    @Test
    void claim_genericPlan_locksCandidatesThroughTheClaimableIndexOnceAndUpdatesByTid() throws Exception {
        String plan = GenericPlan.explain(db.dataSource(), PostgresDeliveryStore.CLAIM, "60000000, 500");

        assertThat(plan)
                .contains("InitPlan")
                .contains("LockRows")
                .contains("Index Scan using scheduled_message_claimable_idx")
                .contains("Tid Scan on scheduled_message m")
                .doesNotContain("Seq Scan")
                .doesNotContain("Semi Join");
    }

    @Test
    void finish_genericPlanWithAThousandOutcomes_looksEachRowUpByPrimaryKey() throws Exception {
        String plan = GenericPlan.explain(db.dataSource(), PostgresDeliveryStore.FINISH, String.join(", ",
                manyIds, manyTokens, repeated("1", "integer"), repeated("publish", "text"), repeated("0", "bigint"),
                repeated("0", "bigint"), repeated("NULL", "text"), repeated("NULL", "text")));

        assertThat(plan).contains("Index Scan using scheduled_message_pk on scheduled_message m")
                .doesNotContain("Seq Scan on scheduled_message");
    }

    @Test
    void renew_genericPlanWithAThousandClaims_looksEachRowUpByPrimaryKey() throws Exception {
        String plan = GenericPlan.explain(db.dataSource(), PostgresDeliveryStore.RENEW,
                "60000000, " + manyIds + ", " + manyTokens);

        assertThat(plan).contains("Index Scan using scheduled_message_pk on scheduled_message m")
                .doesNotContain("Seq Scan on scheduled_message");
    }

    @Test
    void reap_genericPlan_walksTheClaimableIndexNotTheTable() throws Exception {
        String plan = GenericPlan.explain(db.dataSource(), PostgresDeliveryStore.REAP, "10000000, 10000000");

        assertThat(plan).contains("scheduled_message_claimable_idx").doesNotContain("Seq Scan");
    }

    @Test
    void nextDue_genericPlan_readsTheClaimableIndexInOrder() throws Exception {
        String plan = GenericPlan.explain(db.dataSource(), PostgresDeliveryStore.NEXT_DUE, "");

        assertThat(plan).contains("Index Scan using scheduled_message_claimable_idx").doesNotContain("Seq Scan")
                .doesNotContain("Sort");
    }

    @Test
    void admitFunction_genericPlans_countThroughThePendingIndexes() throws Exception {
        String plan = nestedPlans("SELECT outcome FROM admit_scheduled_message(1, 2, gen_random_uuid(),"
                + " lpad('abc', 64, '0'), 'channel-7', 1, 'scheduled', repeat('e', 64), '{}',"
                + " date_trunc('hour', now()) + interval '1 minute', now(), 'key-1',"
                + " date_trunc('hour', now()), date_trunc('hour', now()) + interval '5 minutes',"
                + " 1000000, 1000000, 1000000, NULL)");

        // The owner's count in the channel window reads either channel index: with a few rows per window (this
        // table) the (channel, due_at) one with a filter on owner, in busy channels the (channel, owner, due_at) one.
        assertThat(plan).as(plan)
                .contains("scheduled_message_owner_pending_idx")
                .contains("scheduled_message_channel_pending_idx")
                .contains("Insert on scheduled_message")
                .doesNotContain("Seq Scan on scheduled_message");
    }

    @ParameterizedTest
    @ValueSource(strings = {"admit_scheduled_batch(1, 2, lpad('abc', 64, '0'),",
        "admit_scheduled_group(1, 2, ARRAY[lpad('abc', 64, '0'), lpad('def', 64, '0')]::varchar[],"})
    void admitBatchAndGroupFunctions_genericPlans_countPerEntryThroughThePendingIndexes(String callUpToTheIds)
            throws Exception {
        long hour = db.queryLong("SELECT (extract(epoch FROM date_trunc('hour', now())) * 1000000)::bigint");
        String plan = nestedPlans("SELECT count(*) FROM " + callUpToTheIds
                + " ARRAY[gen_random_uuid(), gen_random_uuid()], '{channel-7,channel-8}', '{1,1}',"
                + " '{scheduled,scheduled}', ARRAY[repeat('e', 64), repeat('f', 64)], '{\"{}\",\"{}\"}',"
                + " ARRAY[" + (hour + 60_000_000L) + ", " + (hour + 120_000_000L) + "]::bigint[],"
                + " ARRAY[" + hour + ", " + hour + "]::bigint[], '{key-1,key-2}',"
                + " ARRAY[" + hour + ", " + hour + "]::bigint[],"
                + " ARRAY[" + (hour + 300_000_000L) + ", " + (hour + 300_000_000L) + "]::bigint[],"
                + " ARRAY[NULL, NULL]::uuid[], 1000000, 1000000, 1000000)");

        assertThat(plan).as(plan)
                .contains("scheduled_message_owner_pending_idx")
                .contains("scheduled_message_channel_pending_idx")
                .contains("idempotency_key_pk")
                .contains("Insert on scheduled_message")
                .doesNotContain("Seq Scan on scheduled_message")
                .doesNotContain("Seq Scan on idempotency_key");
    }

    /**
     * The plans of the statements inside a function call, as auto_explain reports them (one NOTICE each) under
     * {@code force_generic_plan}: the plans plpgsql keeps for the function's bound parameters. Rolled back.
     */
    private static String nestedPlans(String call) throws Exception {
        List<String> plans = new java.util.ArrayList<>();
        try (java.sql.Connection connection = db.dataSource().getConnection();
             java.sql.Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            try {
                statement.execute("SET LOCAL plan_cache_mode = force_generic_plan");
                statement.execute("LOAD 'auto_explain'");
                statement.execute("SET LOCAL auto_explain.log_min_duration = 0");
                statement.execute("SET LOCAL auto_explain.log_nested_statements = on");
                statement.execute("SET LOCAL auto_explain.log_level = notice");
                statement.clearWarnings();
                statement.executeQuery(call).close();
                for (java.sql.SQLWarning w = statement.getWarnings(); w != null; w = w.getNextWarning()) {
                    plans.add(w.getMessage());
                }
            } finally {
                connection.rollback();
            }
        }
        return String.join("\n", plans);
    }

    /** An array literal of 1 000 times {@code element}. */
    private static String repeated(String element, String type) {
        return "'{" + String.join(",", java.util.Collections.nCopies(1000, element)) + "}'::" + type + "[]";
    }

    @Test
    void claim_onTheFilledTable_claimsExactlyTheLimitOfDueRowsPastTheOnesInFlight() {
        DeliveryStore store = new PostgresDeliveryStore(db.dataSource());
        long dueBefore = db.queryLong("SELECT count(*) FROM scheduled_message WHERE state = 'scheduled'"
                + " AND due_at <= now()");

        List<DeliveryStore.ClaimedMessage> claimed = store.claim(100, Duration.ofMinutes(1)).messages();

        assertThat(dueBefore).isGreaterThan(100);
        assertThat(claimed).hasSize(100);
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE state = 'sending'")).isEqualTo(1_100);
    }
}

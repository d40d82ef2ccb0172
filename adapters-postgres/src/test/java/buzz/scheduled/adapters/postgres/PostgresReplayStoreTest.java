package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.AuthenticateRequestCommand;
import buzz.scheduled.application.port.in.AuthenticationResult;
import buzz.scheduled.application.port.out.ReplayStore;
import buzz.scheduled.application.port.out.ReplayStoreContract;
import buzz.scheduled.application.service.AuthenticateRequestService;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.Signature;
import buzz.scheduled.domain.nostr.UnsignedEvent;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The replay store contract against PostgreSQL, and the NIP-98 replay edges through the real service: a header
 * used on one node is refused on another sharing the database and after a restart, up to the last second it could
 * be accepted (created_at at +60 s and −60 s of the clock).
 */
class PostgresReplayStoreTest extends ReplayStoreContract {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final PoolSettings POOL = new PoolSettings(2, Duration.ofSeconds(5), "replay-test");
    private static final String URL = "https://sidecar.example/v1/scheduled-messages";
    private static final byte[] BODY = new byte[0];
    private static final Duration WINDOW = Duration.ofSeconds(60);

    @Override
    protected ReplayStore emptyStore() {
        return new PostgresReplayStore(db.dataSource());
    }

    private static NostrEvent authEvent(long createdAt) {
        UnsignedEvent unsigned = new UnsignedEvent(TestEvents.ALICE, createdAt, 27235,
                List.of(List.of("u", URL), List.of("method", "GET")), "");
        // The fake signature port accepts any signature; a fresh one per event, as BIP-340 gives.
        return unsigned.withSignature(freshSignature());
    }

    private static AuthenticationResult get(AuthenticateRequestService node, NostrEvent header) {
        String authorization = "Nostr " + Base64.getEncoder().encodeToString(
                NostrEventJson.write(header).getBytes(StandardCharsets.UTF_8));
        return node.authenticate(new AuthenticateRequestCommand("GET", URL, BODY, authorization));
    }

    private static AuthenticateRequestService node(javax.sql.DataSource pool, SettableClock clock) {
        return new AuthenticateRequestService(new FakeEventSignatures(), clock, WINDOW,
                new PostgresReplayStore(pool));
    }

    @Test
    void header_usedOnOneNode_isRefusedOnTheOtherAndAfterARestart_untilItsLastAcceptableSecond() {
        long now = Instant.now().getEpochSecond();
        SettableClock clockA = new SettableClock(Instant.ofEpochSecond(now));
        SettableClock clockB = new SettableClock(Instant.ofEpochSecond(now));
        NostrEvent fromTheFutureEdge = authEvent(now + 60);
        NostrEvent fromThePastEdge = authEvent(now - 60);

        AuthenticationResult futureOnA;
        AuthenticationResult pastOnA;
        AuthenticationResult futureOnB;
        AuthenticationResult pastOnB;
        try (HikariDataSource poolA = PostgresDataSources.create(db.jdbcUrl(), POOL);
             HikariDataSource poolB = PostgresDataSources.create(db.jdbcUrl(), POOL)) {
            futureOnA = get(node(poolA, clockA), fromTheFutureEdge);
            pastOnA = get(node(poolA, clockA), fromThePastEdge);
            futureOnB = get(node(poolB, clockB), fromTheFutureEdge);
            pastOnB = get(node(poolB, clockB), fromThePastEdge);
        }
        // Node A restarts: a new pool and a new service, nothing carried over in memory. Its clock is now at the
        // last moment the future-edge header can be accepted (the probe's finding was a replay at +120.06 s).
        clockA.set(Instant.ofEpochSecond(now + 120).plusMillis(60));
        AuthenticationResult futureAfterRestart;
        try (HikariDataSource restarted = PostgresDataSources.create(db.jdbcUrl(), POOL)) {
            futureAfterRestart = get(node(restarted, clockA), fromTheFutureEdge);
        }

        assertThat(futureOnA).isInstanceOf(AuthenticationResult.Authenticated.class);
        assertThat(pastOnA).isInstanceOf(AuthenticationResult.Authenticated.class);
        assertThat(List.of(futureOnB, pastOnB, futureAfterRestart)).allSatisfy(result -> assertThat(result)
                .isInstanceOfSatisfying(AuthenticationResult.Refused.class,
                        refused -> assertThat(refused.message()).endsWith("(replay)")));
        assertThat(db.queryLong("SELECT count(*) FROM nip98_replay WHERE signature = decode(?, 'hex')"
                + " AND keep_until = to_timestamp(?)", fromTheFutureEdge.sig().hex(), now + 60 + 121)).isEqualTo(1);
    }

    @Test
    void pruning_deletesOnlyExpiredRows_andRunsAtMostEveryTenSecondsPerNode() {
        db.truncateAllTables();
        AtomicLong nanos = new AtomicLong(0);
        PostgresReplayStore store = new PostgresReplayStore(db.dataSource(), nanos::get);
        for (int i = 0; i < 5; i++) {
            store.firstUse(freshSignature(), Instant.now().minusSeconds(1));
        }
        long afterFirstInsert = db.queryLong("SELECT count(*) FROM nip98_replay");
        Signature live = freshSignature();
        nanos.set(Duration.ofSeconds(9).toNanos());
        store.firstUse(live, Instant.now().plusSeconds(180));
        long beforeTheInterval = db.queryLong("SELECT count(*) FROM nip98_replay");
        nanos.set(Duration.ofSeconds(10).toNanos());
        store.firstUse(freshSignature(), Instant.now().plusSeconds(180));
        long afterTheInterval = db.queryLong("SELECT count(*) FROM nip98_replay");

        // The very first call prunes right after its insert, so its own expired row is already gone.
        assertThat(afterFirstInsert).isEqualTo(4);
        assertThat(beforeTheInterval).isEqualTo(5);
        assertThat(afterTheInterval).isEqualTo(2);
        assertThat(store.firstUse(live, Instant.now().plusSeconds(180))).isFalse();
    }

    @Test
    void firstUse_commitsInItsOneStatement_andLeavesThePooledSessionCommittingSynchronously() throws Exception {
        Signature signature = freshSignature();
        String setting;
        boolean first;
        try (HikariDataSource one = PostgresDataSources.create(db.jdbcUrl(),
                new PoolSettings(1, Duration.ofSeconds(5), "replay-one"))) {
            // The session's own setting, whatever the test server's default (an embedded one may have it off).
            try (java.sql.Connection same = one.getConnection();
                 java.sql.Statement set = same.createStatement()) {
                set.execute("SET synchronous_commit = on");
            }
            first = new PostgresReplayStore(one).firstUse(signature, Instant.now().plusSeconds(180));
            try (java.sql.Connection same = one.getConnection();
                 java.sql.Statement show = same.createStatement();
                 java.sql.ResultSet row = show.executeQuery("SHOW synchronous_commit")) {
                row.next();
                setting = row.getString(1);
            }
        }

        assertThat(first).isTrue();
        // Committed without a COMMIT of its own: another session sees the row.
        assertThat(db.queryLong("SELECT count(*) FROM nip98_replay WHERE signature = decode(?, 'hex')",
                signature.hex())).isEqualTo(1);
        // The asynchronous commit was the statement's alone: the next borrower of the session commits durably.
        assertThat(setting).isEqualTo("on");
    }

    @Test
    void aGroupOfHeaders_isOneStatement_inWhichASignatureUsedBeforeOrEarlierInTheGroupIsAReplay() throws Exception {
        Signature usedBefore = freshSignature();
        Signature fresh = freshSignature();
        Signature twice = freshSignature();
        Signature expired = freshSignature();
        Instant keep = Instant.now().plusSeconds(180);
        String setting;
        List<Boolean> first;
        try (HikariDataSource one = PostgresDataSources.create(db.jdbcUrl(),
                new PoolSettings(1, Duration.ofSeconds(5), "replay-group"))) {
            try (java.sql.Connection same = one.getConnection();
                 java.sql.Statement set = same.createStatement()) {
                set.execute("SET synchronous_commit = on");
            }
            PostgresReplayStore store = new PostgresReplayStore(one);
            assertThat(store.firstUse(usedBefore, keep)).isTrue();
            assertThat(store.firstUse(expired, Instant.now().minusSeconds(1))).isTrue();
            first = store.recordAll(List.of(new PostgresReplayStore.Use(fresh, keep),
                    new PostgresReplayStore.Use(usedBefore, keep), new PostgresReplayStore.Use(twice, keep),
                    new PostgresReplayStore.Use(twice, keep), new PostgresReplayStore.Use(expired, keep)));
            try (java.sql.Connection same = one.getConnection();
                 java.sql.Statement show = same.createStatement();
                 java.sql.ResultSet row = show.executeQuery("SHOW synchronous_commit")) {
                row.next();
                setting = row.getString(1);
            }
        }

        assertThat(first).containsExactly(true, false, true, false, true);
        assertThat(db.queryLong("SELECT count(*) FROM nip98_replay WHERE signature IN (decode(?, 'hex'),"
                + " decode(?, 'hex'), decode(?, 'hex'))", fresh.hex(), twice.hex(), expired.hex())).isEqualTo(3);
        assertThat(setting).isEqualTo("on");
    }
}

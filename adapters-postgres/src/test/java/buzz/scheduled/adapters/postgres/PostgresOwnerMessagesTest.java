package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.OwnerMessagesContract;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.OwnerMessageChanges.ReviseResult;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.OwnerOutcome;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The owner's storage contract against PostgreSQL (a scratch database with this build's migrations). */
class PostgresOwnerMessagesTest extends OwnerMessagesContract<PostgresOwnerMessages> {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected PostgresOwnerMessages emptyStore() {
        db.truncateAllTables();
        return new PostgresOwnerMessages(db.dataSource());
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new PostgresDeliveryStore(db.dataSource());
    }

    @Override
    protected void deleteChannel(Channel channel) {
        db.execute("INSERT INTO channel_tombstone (channel) VALUES (?)", channel.value());
    }

    @Override
    protected void letTimePass(Duration duration) {
        db.letTimePass(duration);
    }

    @Override
    protected List<Revision> revisions(ScheduleId id) {
        return db.queryColumn("SELECT revision::text FROM scheduled_message_revision WHERE message_id = ?"
                + " ORDER BY revision", id.value()).stream().map(n -> new Revision(Integer.parseInt(n))).toList();
    }

    @Override
    protected List<Revision> revisionsWithEvent(ScheduleId id) {
        return db.queryColumn("SELECT revision::text FROM scheduled_message_revision WHERE message_id = ?"
                + " AND event_json IS NOT NULL ORDER BY revision", id.value()).stream()
                .map(n -> new Revision(Integer.parseInt(n))).toList();
    }

    // ------------------------------------------------------------------------------------------------------
    // storage growth (issue 17): a key editing one large message again and again

    private static final Random RANDOM = new Random(17);

    /** An incompressible event just under the whole-event limit: ~200 KiB of random content and 200 tags. */
    private NostrEvent largeEvent(long createdAt) {
        byte[] noise = new byte[200 * 1024];
        RANDOM.nextBytes(noise);
        TestEvents event = TestEvents.at(createdAt).content(Base64.getUrlEncoder().encodeToString(noise));
        for (int i = 0; i < 200; i++) {
            event = event.tag("t", Integer.toString(i) + "x".repeat(90));
        }
        NostrEvent built = event.build();
        assertThat(NostrEventJson.write(built).getBytes(StandardCharsets.UTF_8).length)
                .isBetween(280_000, AdmissionRules.DEFAULT_MAX_EVENT_BYTES);
        return built;
    }

    private long tableBytes() {
        return db.queryLong("SELECT pg_total_relation_size('scheduled_message')"
                + " + pg_total_relation_size('scheduled_message_revision')");
    }

    /**
     * The most bytes the two tables (with TOAST and indexes) grew by, measured after every one of {@code edits}
     * edits of one large message keeping {@code revisionsKept} events, with a plain VACUUM (what autovacuum does)
     * after every {@code vacuumEvery} edits.
     */
    private long growth(int edits, int revisionsKept, int vacuumEvery) {
        store = emptyStore();
        db.execute("VACUUM scheduled_message, scheduled_message_revision");
        CreateLimits limits = new CreateLimits(100, 30, 300, Duration.ofMinutes(5), revisionsKept);
        ScheduledMessage current = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                largeEvent(inSeconds(3600))));
        db.execute("VACUUM scheduled_message, scheduled_message_revision");
        long before = tableBytes();
        long peak = 0;
        for (int i = 1; i <= edits; i++) {
            ScheduledMessage next = revised(current, largeEvent(inSeconds(3600 + i)));
            assertThat(store.replaceRevision(current, next, limits)).isEqualTo(new ReviseResult.Replaced());
            current = next;
            if (i % vacuumEvery == 0) {
                db.execute("VACUUM scheduled_message, scheduled_message_revision");
            }
            peak = Math.max(peak, tableBytes() - before);
        }
        System.out.printf("  %d edits, %d revision(s) kept, VACUUM every %d: %d bytes before, %d after, peak growth"
                + " %d bytes%n", edits, revisionsKept, vacuumEvery, before, tableBytes(), peak);
        return peak;
    }

    @Test
    void thirtyEditsOfALargeEvent_growTheTablesByAFewEventsInsteadOfThirty() {
        int eventBytes = AdmissionRules.DEFAULT_MAX_EVENT_BYTES;

        long keptOne = growth(30, CreateLimits.DEFAULT_REVISIONS_KEPT, 1);
        long keptOneVacuumEvery10 = growth(30, CreateLimits.DEFAULT_REVISIONS_KEPT, 10);
        long keptAll = growth(30, 31, 1);
        System.out.printf("storage growth (peak) over 30 edits of one ~290 KB event: kept 1 revision, VACUUM after"
                + " each edit: %d bytes; kept 1, VACUUM every 10 edits: %d bytes; every revision kept (as before):"
                + " %d bytes%n", keptOne, keptOneVacuumEvery10, keptAll);

        // The current event lives in the message row and in its revision row; a few more versions wait for
        // VACUUM between edits. Keeping every revision grows by every event.
        assertThat(keptOne).isLessThanOrEqualTo(4L * eventBytes);
        assertThat(keptOneVacuumEvery10).isLessThanOrEqualTo(24L * eventBytes);
        assertThat(keptAll).isGreaterThan(25L * 280_000);
    }

    // ------------------------------------------------------------------------------------------------------
    // a requeue adds to the owner's pending count: it waits for the owner's lock, as a batch's count (V17) needs

    @Test
    void requeue_ofAFailedMessage_waitsForTheOwnersLock_whichABatchHoldsWhileItCounts() throws Exception {
        ScheduledMessage created = createdMessage(dueIn(Duration.ofMinutes(30)));
        db.execute("UPDATE scheduled_message SET state = 'failed', reason = 'relay_rejected', finished_at = now()"
                + " WHERE id = ?", created.id().value());
        ScheduledMessage failed = store.find(created.id()).orElseThrow();
        ScheduledMessage requeued = ((OwnerOutcome.Changed) failed.requeue(
                Optional.of(failed.revision()), Duration.ofDays(1), now())).message();
        CreateLimits limits = new CreateLimits(100, 30, 300, Duration.ofMinutes(5), 1);

        CompletableFuture<ReviseResult> requeue;
        boolean doneWhileLocked;
        try (Connection batch = DriverManager.getConnection(db.jdbcUrl())) {
            batch.setAutoCommit(false);
            try (PreparedStatement lock = batch.prepareStatement(
                    "SELECT pg_advisory_xact_lock(?, hashtext(?))")) {
                lock.setInt(1, OwnerMessageRows.OWNER_LOCK);
                lock.setString(2, created.owner().hex());
                lock.executeQuery().close();
            }
            requeue = CompletableFuture.supplyAsync(
                    () -> store.replaceRevision(failed, requeued, limits));
            // Wait (bounded) until the requeue's session is seen waiting for an advisory lock.
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (db.queryLong("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                    + " AND objid = (hashtext(?)::bigint & 4294967295)", created.owner().hex()) == 0
                    && !requeue.isDone() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            doneWhileLocked = requeue.isDone();
            batch.commit();
        }

        assertThat(doneWhileLocked).as("the requeue went ahead while the owner's lock was held").isFalse();
        assertThat(requeue.get(30, TimeUnit.SECONDS)).isEqualTo(new ReviseResult.Replaced());
        assertThat(store.find(created.id()).orElseThrow().state().terminal()).isFalse();
    }
}

package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.OwnerMessagesContract;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.MessageAdmission.BatchEntry;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.MessageAdmission.CreateResult;
import buzz.scheduled.application.port.out.MessageAdmission.IdempotencyKey;
import buzz.scheduled.application.port.out.MessageAdmission.WindowScope;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Instant;
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

    // ------------------------------------------------------------------------------------------------------
    // creates admitted in groups (V18): entries of several owners in one call, each answered as if alone

    private static final PublicKey CAROL = new PublicKey("c".repeat(64));

    private ScheduledMessage by(PublicKey owner, long dueAt, String channel) {
        return message(new ScheduleId(UUID.randomUUID()), TestEvents.at(dueAt).by(owner).channel(channel).build());
    }

    @Test
    void aGroupOfSeveralOwners_answersEachEntryAsIfTheEntriesWereCreatedOneAfterTheOther() {
        PostgresMessageAdmission admission = new PostgresMessageAdmission(db.dataSource());
        CreateLimits limits = new CreateLimits(4, 2, 4, Duration.ofMinutes(5), 1);
        long window = Math.floorDiv(inSeconds(3600), 300) * 300;
        long nextWindow = window + 300;
        ScheduledMessage storedBefore = createdMessage(by(ALICE, window + 1, "elsewhere"));
        ScheduledMessage alice1 = by(ALICE, window + 1, "general");
        ScheduledMessage bob1 = by(BOB, window + 2, "general");
        ScheduledMessage alice1Again = withId(alice1, new ScheduleId(UUID.randomUUID()));
        ScheduledMessage alice2 = by(ALICE, window + 3, "general");
        ScheduledMessage alice3 = by(ALICE, window + 4, "general");
        ScheduledMessage alice4 = by(ALICE, nextWindow + 1, "general");
        ScheduledMessage alice5 = by(ALICE, nextWindow + 2, "general");
        ScheduledMessage bob2 = by(BOB, window + 5, "general");
        ScheduledMessage carol1 = by(CAROL, window + 6, "general");
        ScheduledMessage bob3 = by(BOB, nextWindow + 3, "general");
        IdempotencyKey sharedKey = new IdempotencyKey(ALICE, "same-key");
        IdempotencyKey bobsSharedKey = new IdempotencyKey(BOB, "same-key");

        List<CreateResult> results = admission.createTogether(List.of(
                new BatchEntry(alice1, sharedKey),
                new BatchEntry(bob1, bobsSharedKey),        // the same key text, another owner
                new BatchEntry(alice1Again, sharedKey),     // Alice's key again, with the same event
                new BatchEntry(alice2, keyOf(alice2)),
                new BatchEntry(alice3, keyOf(alice3)),      // Alice's third in the window, over 2
                new BatchEntry(alice4, keyOf(alice4)),      // Alice's fourth pending (one stored before)
                new BatchEntry(alice5, keyOf(alice5)),      // a fifth, over 4
                new BatchEntry(bob2, keyOf(bob2)),          // the channel's fourth in the window
                new BatchEntry(carol1, keyOf(carol1)),      // a fifth in the window, over 4
                new BatchEntry(bob3, bobsSharedKey)), limits); // Bob's key again, with another event

        Instant windowStart = Instant.ofEpochSecond(window);
        assertThat(results).containsExactly(
                new CreateResult.Created(alice1),
                new CreateResult.Created(bob1),
                new CreateResult.Replayed(alice1),
                new CreateResult.Created(alice2),
                new CreateResult.ChannelWindowFull(2, windowStart, WindowScope.OWNER),
                new CreateResult.Created(alice4),
                new CreateResult.TooManyPending(4),
                new CreateResult.Created(bob2),
                new CreateResult.ChannelWindowFull(4, windowStart, WindowScope.CHANNEL),
                new CreateResult.IdempotencyConflict(bob1.id(), bob1.eventId()));
        assertThat(db.queryColumn("SELECT id::text FROM scheduled_message ORDER BY id")).containsExactlyInAnyOrder(
                storedBefore.id().value().toString(), alice1.id().value().toString(),
                bob1.id().value().toString(), alice2.id().value().toString(), alice4.id().value().toString(),
                bob2.id().value().toString());
        assertThat(db.queryLong("SELECT count(*) FROM scheduled_message_revision")).isEqualTo(6);
        assertThat(db.queryColumn("SELECT owner || ' ' || key FROM idempotency_key WHERE key = 'same-key'"))
                .containsExactlyInAnyOrder(ALICE.hex() + " same-key", BOB.hex() + " same-key");
    }

    @Test
    void concurrentCreatesOfManyOwners_withTheirReplays_keepEachOwnersPendingLimit() throws Exception {
        PostgresMessageAdmission admission = new PostgresMessageAdmission(db.dataSource(), 1);
        CreateLimits fivePending = new CreateLimits(5, 1_000, 1_000, Duration.ofMinutes(5), 1);
        List<PublicKey> owners = java.util.stream.IntStream.range(0, 8)
                .mapToObj(i -> new PublicKey(String.format("%064x", i + 1))).toList();
        List<java.util.concurrent.Callable<CreateResult>> creates = new java.util.ArrayList<>();
        for (PublicKey owner : owners) {
            for (int i = 0; i < 12; i++) {
                ScheduledMessage m = by(owner, inSeconds(3600 + i), "channel-" + (i % 3));
                creates.add(() -> admission.create(m, keyOf(m), fivePending));
                creates.add(() -> admission.create(m, keyOf(m), fivePending)); // and its replay
            }
        }
        java.util.Collections.shuffle(creates, new Random(19));
        try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            List<java.util.concurrent.Future<CreateResult>> answers = threads.invokeAll(creates);
            for (var answer : answers) {
                assertThat(answer.get(30, TimeUnit.SECONDS)).isNotNull();
            }
        }

        for (PublicKey owner : owners) {
            assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE owner = ?", owner.hex()))
                    .as("%s's messages", owner).isEqualTo(5);
        }
        assertThat(db.queryLong("SELECT count(*) FROM idempotency_key")).isEqualTo(owners.size() * 5L);
    }

    @Test
    void tombstoneLookUpsAskedTogether_areAnsweredEachForItsOwnChannel() {
        PostgresMessageAdmission admission = new PostgresMessageAdmission(db.dataSource());
        deleteChannel(new Channel("gone"));
        deleteChannel(new Channel("gone too"));

        assertThat(admission.tombstonedAll(List.of(new Channel("gone"), GENERAL, new Channel("gone too"),
                new Channel("gone"), new Channel("elsewhere")))).containsExactly(true, false, true, true, false);
        assertThat(admission.tombstonedAll(List.of(GENERAL))).containsExactly(false);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "the {0}''s lock")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"channel", "owner"})
    void aGroupDoesNotWaitForALockHeldElsewhere_theEntryThatNeedsItWaitsAlone(String heldLock) throws Exception {
        PostgresMessageAdmission admission = new PostgresMessageAdmission(db.dataSource());
        ScheduledMessage free = by(ALICE, inSeconds(3600), "general");
        ScheduledMessage held = by(BOB, inSeconds(3600), "being-deleted");
        try (Connection holder = DriverManager.getConnection(db.jdbcUrl())) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("SELECT pg_advisory_xact_lock(?, hashtext(?))")) {
                boolean channel = heldLock.equals("channel");
                lock.setInt(1, channel ? OwnerMessageRows.CHANNEL_LOCK : OwnerMessageRows.OWNER_LOCK);
                lock.setString(2, channel ? "being-deleted" : BOB.hex());
                lock.executeQuery().close();
            }
            CompletableFuture<List<CreateResult>> group = CompletableFuture.supplyAsync(() -> admission.createTogether(
                    List.of(new BatchEntry(held, keyOf(held)), new BatchEntry(free, keyOf(free))), NO_LIMITS));

            // the group committed the free entry while the other one still waits for the channel's lock
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (db.queryLong("SELECT count(*) FROM scheduled_message WHERE id = ?", free.id().value()) == 0) {
                assertThat(System.nanoTime()).as("the free entry is stored while the lock is held").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(group).isNotDone();
            assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE id = ?", held.id().value()))
                    .isZero();
            holder.commit();

            assertThat(group.get(10, TimeUnit.SECONDS)).containsExactly(new CreateResult.Created(held),
                    new CreateResult.Created(free));
        }
    }
}

package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.GroupedDeliveryWrites.Publish;
import buzz.scheduled.adapters.postgres.GroupedDeliveryWrites.StartSending;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.ScheduleStore;
import buzz.scheduled.application.port.out.ScheduleStore.Claim;
import buzz.scheduled.application.port.out.ScheduleStore.CreateResult;
import buzz.scheduled.application.port.out.ScheduleStore.IdempotencyKey;
import buzz.scheduled.application.port.out.ScheduleStore.SendingStarted;
import buzz.scheduled.application.port.out.ScheduleStoreContract;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.application.port.out.ChannelAdministration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The storage contract against PostgreSQL (a scratch database with this build's migrations). */
class PostgresScheduleStoreTest extends ScheduleStoreContract {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected ScheduleStore emptyStore() {
        db.truncateAllTables();
        return new PostgresScheduleStore(db.dataSource());
    }

    @Override
    protected void deleteChannel(Channel channel) {
        db.execute("INSERT INTO channel_tombstone (channel) VALUES (?)", channel.value());
    }

    /** now() cannot be moved, so every stored time moves back instead; relative to now() that is the same. */
    @Override
    protected void letTimePass(Duration duration) {
        long micros = duration.toNanos() / 1_000;
        db.execute("UPDATE scheduled_message SET due_at = due_at - ? * interval '1 microsecond',"
                + " retry_at = retry_at - ? * interval '1 microsecond',"
                + " lease_until = lease_until - ? * interval '1 microsecond',"
                + " finished_at = finished_at - ? * interval '1 microsecond',"
                + " created_at = created_at - ? * interval '1 microsecond',"
                + " updated_at = updated_at - ? * interval '1 microsecond'", micros, micros, micros, micros, micros, micros);
    }

    // ------------------------------------------------------------------------------------------------------
    // Grouped delivery writes: one statement for many senders must answer each as if it had run alone.

    @Test
    void groupedPreSendStep_oneBatchMixingHeldStaleAndBrokenClaims_answersEachAsAlone() {
        List<ScheduledMessage> claimed = claimedMessages(6, "gone");
        deleteChannel(new Channel("gone"));
        GroupedDeliveryWrites writes = new GroupedDeliveryWrites(DSL.using(db.dataSource(), SQLDialect.POSTGRES));
        Duration lateness = Duration.ofMinutes(15);

        List<Optional<SendingStarted>> answers = writes.startSendingBatch(List.of(
                new StartSending(claimOf(claimed.get(0)), claimed.get(0).revision(), Duration.ZERO, lateness),
                new StartSending(staleClaimOf(claimed.get(1)), claimed.get(1).revision(), Duration.ZERO, lateness),
                new StartSending(claimOf(claimed.get(2)), claimed.get(2).revision().next(), Duration.ZERO, lateness),
                new StartSending(claimOf(claimed.get(3)), claimed.get(3).revision(), LEASE.plusSeconds(1), lateness),
                new StartSending(claimOf(claimed.get(4)), claimed.get(4).revision(), Duration.ZERO,
                        Duration.ofSeconds(30)),
                new StartSending(claimOf(claimed.get(5)), claimed.get(5).revision(), Duration.ZERO, lateness),
                new StartSending(claimOf(claimed.get(0)), claimed.get(0).revision(), Duration.ZERO, lateness),
                new StartSending(claimOf(claimed.get(2)), claimed.get(2).revision(), Duration.ZERO, lateness)));

        assertThat(answers.subList(1, 6)).as("stale token, other revision, short lease, too late, deleted channel")
                .allSatisfy(answer -> assertThat(answer).isEmpty());
        assertThat(answers.get(7)).as("the right revision after a wrong one for the same claim").isPresent();
        // The same claim twice: one of the two moves the row, the other finds it moved, as one after the other.
        assertThat(List.of(answers.get(0).isPresent(), answers.get(6).isPresent())).containsExactlyInAnyOrder(true, false);
        assertThat(answers.get(0).or(() -> answers.get(6))).hasValueSatisfying(started -> assertThat(
                started.leaseUntil()).isEqualTo(((ScheduleState.Claimed) claimed.get(0).state()).leaseUntil()));
        assertThat(store.find(claimed.get(0).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Sending.class);
        assertThat(store.find(claimed.get(2).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Sending.class);
        for (ScheduledMessage untouched : List.of(claimed.get(1), claimed.get(3), claimed.get(4), claimed.get(5))) {
            assertThat(store.find(untouched.id())).contains(untouched);
        }
    }

    @Test
    void groupedPublish_oneBatchMixingSendingClaimedAndStaleClaims_answersEachAsAlone() {
        List<ScheduledMessage> claimed = claimedMessages(4, "general");
        for (ScheduledMessage message : claimed.subList(0, 3)) {
            assertThat(store.startSending(claimOf(message), message.revision(), Duration.ZERO, Duration.ofMinutes(15)))
                    .isPresent();
        }
        GroupedDeliveryWrites writes = new GroupedDeliveryWrites(DSL.using(db.dataSource(), SQLDialect.POSTGRES));

        List<Boolean> answers = writes.markPublishedBatch(List.of(
                new Publish(claimOf(claimed.get(0)), claimed.get(0).revision()),
                new Publish(staleClaimOf(claimed.get(1)), claimed.get(1).revision()),
                new Publish(claimOf(claimed.get(2)), claimed.get(2).revision().next()),
                new Publish(claimOf(claimed.get(3)), claimed.get(3).revision()),
                new Publish(claimOf(claimed.get(0)), claimed.get(0).revision()),
                new Publish(claimOf(claimed.get(2)), claimed.get(2).revision())));

        assertThat(answers.subList(1, 4)).as("stale token, other revision, not sending").containsOnly(false);
        assertThat(answers.get(5)).as("the right revision after a wrong one for the same claim").isTrue();
        assertThat(List.of(answers.get(0), answers.get(4))).as("the same claim twice").containsExactlyInAnyOrder(true, false);
        assertThat(store.find(claimed.get(0).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Published.class);
        assertThat(store.find(claimed.get(1).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Sending.class);
        assertThat(store.find(claimed.get(2).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Published.class);
        assertThat(store.find(claimed.get(3).id())).contains(claimed.get(3));
    }

    @Test
    void groupedPreSendStep_waitingOnARowWhileTheChannelIsDeleted_bothFinishWithoutADeadlock() throws Exception {
        List<ScheduledMessage> byId = claimedMessages(3, "general").stream()
                .sorted(Comparator.comparing(m -> m.id().value().toString())).toList();
        GroupedDeliveryWrites writes = new GroupedDeliveryWrites(DSL.using(db.dataSource(), SQLDialect.POSTGRES));
        PostgresChannelAdministration administration = new PostgresChannelAdministration(db.dataSource());
        ExecutorService sessions = Executors.newFixedThreadPool(2);
        try (Connection holder = db.dataSource().getConnection()) {
            // A third session holds the middle row, so the batch locks the first row and waits on the second.
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement(
                    "SELECT 1 FROM scheduled_message WHERE id = ? FOR NO KEY UPDATE")) {
                lock.setObject(1, byId.get(1).id().value());
                lock.executeQuery().close();
            }
            Future<List<Optional<SendingStarted>>> batch = sessions.submit(() -> writes.startSendingBatch(
                    byId.stream().map(m -> new StartSending(claimOf(m), m.revision(), Duration.ZERO,
                            Duration.ofMinutes(15))).toList()));
            awaitLockWaiters(1);
            // The deletion's multi-row write now wants rows the batch holds or waits for: it must queue behind
            // the batch in id order rather than take the last row first and close a cycle.
            Future<ChannelAdministration.ChannelDeleted> deletion =
                    sessions.submit(() -> administration.deleteChannel(GENERAL));
            awaitLockWaiters(2);
            holder.commit();

            assertThat(batch.get(30, TimeUnit.SECONDS)).allSatisfy(answer -> assertThat(answer).isPresent());
            ChannelAdministration.ChannelDeleted deleted = deletion.get(30, TimeUnit.SECONDS);
            assertThat(deleted.failed()).as("rows already sending are left to their finishing write").isZero();
            assertThat(deleted.inFlight()).isEqualTo(3);
        } finally {
            sessions.shutdownNow();
        }
    }

    /** Waits until {@code count} sessions of the scratch database wait on a lock. */
    private static void awaitLockWaiters(int count) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        try (Connection watcher = db.dataSource().getConnection();
             PreparedStatement waiting = watcher.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
            while (true) {
                try (ResultSet rs = waiting.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) >= count) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out waiting for " + count + " sessions to wait on a lock");
                }
                Thread.sleep(5);
            }
        }
    }

    /** {@code count} messages due a minute ago, the last in {@code lastChannel}, all claimed; in creation order. */
    private List<ScheduledMessage> claimedMessages(int count, String lastChannel) {
        for (int i = 0; i < count; i++) {
            TestEvents event = TestEvents.at(inSeconds(-60 - (count - i)));
            if (i == count - 1) {
                event.channel(lastChannel);
            }
            ScheduledMessage message = message(new ScheduleId(UUID.randomUUID()), event.build());
            assertThat(store.create(message, new IdempotencyKey(message.owner(), message.eventId().hex()), NO_LIMITS))
                    .isEqualTo(new CreateResult.Created(message));
        }
        List<ScheduledMessage> claimed = store.claimDue(count, LEASE);
        assertThat(claimed).hasSize(count);
        return claimed.stream().sorted(Comparator.comparing(ScheduledMessage::dueAt)).toList();
    }

    private static Claim claimOf(ScheduledMessage message) {
        return new Claim(message.id(), message.token().orElseThrow());
    }

    private static Claim staleClaimOf(ScheduledMessage message) {
        return new Claim(message.id(), new FencingToken(message.token().orElseThrow().value() + 100_000));
    }
}

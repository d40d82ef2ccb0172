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
import java.time.Duration;
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
                new StartSending(claimOf(claimed.get(0)), claimed.get(0).revision(), Duration.ZERO, lateness)));

        assertThat(answers.get(0)).hasValueSatisfying(started -> assertThat(started.leaseUntil())
                .isEqualTo(((ScheduleState.Claimed) claimed.get(0).state()).leaseUntil()));
        assertThat(answers.subList(1, 7)).as("stale token, other revision, short lease, too late, deleted channel,"
                + " the same claim a second time").allSatisfy(answer -> assertThat(answer).isEmpty());
        assertThat(store.find(claimed.get(0).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Sending.class);
        for (ScheduledMessage untouched : claimed.subList(1, 6)) {
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
                new Publish(claimOf(claimed.get(0)), claimed.get(0).revision())));

        assertThat(answers).containsExactly(true, false, false, false, false);
        assertThat(store.find(claimed.get(0).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Published.class);
        assertThat(store.find(claimed.get(1).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Sending.class);
        assertThat(store.find(claimed.get(2).id()).orElseThrow().state()).isInstanceOf(ScheduleState.Sending.class);
        assertThat(store.find(claimed.get(3).id())).contains(claimed.get(3));
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

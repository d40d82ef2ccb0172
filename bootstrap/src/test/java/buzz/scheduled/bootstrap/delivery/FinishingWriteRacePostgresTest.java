package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.postgres.PostgresDeliveryStore;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.DeliveryStore.FinishResult;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/failure-scenarios.md F8 on real PostgreSQL row locks: leases expire, then 40 {@code published} finishing writes
 * race one reaper. Per message exactly one conditional write wins, and no message ends both published and
 * scheduled.
 */
class FinishingWriteRacePostgresTest {
    private static final int MESSAGES = 40;

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final Duration LEASE = Duration.ofSeconds(3);

    @RepeatedTest(2)
    void f8_finishingWritesRaceTheReaperAtLeaseExpiry_exactlyOneWinsPerMessage() throws Exception {
        db.truncateAllTables();
        PostgresOwnerMessages store = new PostgresOwnerMessages(db.dataSource());
        DeliveryStore delivery = new PostgresDeliveryStore(db.dataSource());
        Authors author = new Authors();
        Instant due = store.now().truncatedTo(ChronoUnit.SECONDS);
        for (int i = 0; i < MESSAGES; i++) {
            Authors.schedule(store, author.message(due, "F8 #" + i));
        }
        List<ClaimedMessage> claimed = delivery.claim(MESSAGES, LEASE).messages();
        assertThat(claimed).hasSize(MESSAGES);
        Instant lastLease = claimed.stream().map(ClaimedMessage::leaseUntil).max(Instant::compareTo).orElseThrow();
        Poll.until("every lease to expire", Duration.ofSeconds(10), () -> store.now().isAfter(lastLease));

        CyclicBarrier start = new CyclicBarrier(MESSAGES + 1);
        List<Future<FinishResult>> publishes = new ArrayList<>();
        Future<Integer> reap;
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (ClaimedMessage message : claimed) {
                publishes.add(threads.submit(() -> {
                    start.await();
                    return delivery.finish(List.of(new Finish.Publish(message.claim(), message.revision()))).get(0);
                }));
            }
            reap = threads.submit(() -> {
                start.await();
                return delivery.reap(Duration.ZERO);
            });
        }

        int reaped = reap.get();
        int publishedWins = 0;
        for (int i = 0; i < MESSAGES; i++) {
            boolean won = publishes.get(i).get().recorded();
            ScheduledMessage row = store.find(claimed.get(i).claim().id()).orElseThrow();
            if (won) {
                publishedWins++;
                assertThat(row.state()).isInstanceOf(ScheduleState.Published.class);
            } else {
                assertThat(publishes.get(i).get().written()).isEqualTo(DeliveryStore.Written.LOST);
                assertThat(row.state()).isEqualTo(ScheduleState.Scheduled.NOW);
                assertThat(row.token()).isEmpty();
                assertThat(row.publishedAt()).isEmpty();
            }
        }
        System.out.printf("F8 on PostgreSQL: %d finishing writes won, %d reaped%n", publishedWins, reaped);
        assertThat(publishedWins + reaped).isEqualTo(MESSAGES);
    }
}

package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.PostgresScheduleStore;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.in.DeliveryUseCase.ClaimedWork;
import buzz.scheduled.application.port.in.DeliveryUseCase.GateResult;
import buzz.scheduled.application.service.DeliveryService;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.RelayDecidesAccess;
import buzz.scheduled.bootstrap.Poll;
import buzz.scheduled.domain.schedule.Backoff;
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
 * SCENARIOS F8 on real PostgreSQL row locks: leases expire, then 40 {@code published} finishing writes race
 * one reaper. Per message exactly one conditional write wins, and no message ends both published and
 * scheduled.
 */
class FinishingWriteRacePostgresTest {
    private static final int MESSAGES = 40;

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private final DeliverySettings settings = new DeliverySettings(Duration.ofSeconds(3), Duration.ofSeconds(1),
            Duration.ofMillis(500), Duration.ZERO, Duration.ofSeconds(900),
            new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), Math::random));

    @RepeatedTest(2)
    void f8_finishingWritesRaceTheReaperAtLeaseExpiry_exactlyOneWinsPerMessage() throws Exception {
        db.truncateAllTables();
        PostgresScheduleStore store = new PostgresScheduleStore(db.dataSource());
        DeliveryService delivery = new DeliveryService(store, new RelayDecidesAccess(), settings);
        Authors author = new Authors();
        Instant due = store.now().truncatedTo(ChronoUnit.SECONDS);
        for (int i = 0; i < MESSAGES; i++) {
            Authors.schedule(store, author.message(due, "F8 #" + i));
        }
        List<ClaimedWork> works = delivery.claimDue(MESSAGES);
        assertThat(works).hasSize(MESSAGES);
        for (ClaimedWork work : works) {
            assertThat(delivery.startSending(work)).isInstanceOf(GateResult.Send.class);
        }
        Instant lastLease = works.stream().map(ClaimedWork::leaseUntil).max(Instant::compareTo).orElseThrow();
        Poll.until("every lease to expire", Duration.ofSeconds(10), () -> store.now().isAfter(lastLease));

        CyclicBarrier start = new CyclicBarrier(MESSAGES + 1);
        List<Future<Boolean>> publishes = new ArrayList<>();
        Future<Integer> reap;
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (ClaimedWork work : works) {
                publishes.add(threads.submit(() -> {
                    start.await();
                    return delivery.published(work);
                }));
            }
            reap = threads.submit(() -> {
                start.await();
                return delivery.reapExpiredLeases();
            });
        }

        int reaped = reap.get();
        int publishedWins = 0;
        for (int i = 0; i < MESSAGES; i++) {
            boolean won = publishes.get(i).get();
            ScheduledMessage row = store.find(works.get(i).id()).orElseThrow();
            if (won) {
                publishedWins++;
                assertThat(row.state()).isInstanceOf(ScheduleState.Published.class);
            } else {
                assertThat(row.state()).isEqualTo(ScheduleState.Scheduled.NOW);
                assertThat(row.token()).isEmpty();
                assertThat(row.publishedAt()).isEmpty();
            }
        }
        System.out.printf("F8 on PostgreSQL: %d finishing writes won, %d reaped%n", publishedWins, reaped);
        assertThat(publishedWins + reaped).isEqualTo(MESSAGES);
    }
}

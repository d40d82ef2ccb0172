package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import buzz.scheduled.application.port.in.QueueStatsUseCase.MinuteFigures;
import buzz.scheduled.application.port.in.QueueStatsUseCase.QueueFigures;
import buzz.scheduled.application.port.in.QueueStatsUseCase.RecentFailure;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What every {@link QueueStatistics} reads for the operator's view: counts by state, the overdue figures and the
 * late-delivery reservation, the recent window's outcomes and lateness, and the latest failures, newest first. Run
 * against PostgreSQL (adapters-postgres); messages are made and delivered through the store's own ports.
 */
public abstract class QueueStatisticsContract<S extends OwnerMessageQueries & MessageAdmission & OwnerMessageChanges>
        extends StoreContractSupport<S> {
    private static final Duration HOUR = Duration.ofHours(1);

    /** The statistics over the rows of the store {@link #emptyStore()} made last. */
    protected abstract QueueStatistics queueStatistics();

    @Test
    void figures_emptyStore_countEveryStateAsZeroAndNothingElse() {
        QueueFigures figures = queueStatistics().figures(HOUR, 10);

        assertThat(figures.byState()).containsOnlyKeys(StateName.wireNames(StateName.all()));
        assertThat(figures.byState().values()).containsOnly(0L);
        assertThat(figures.overdue()).isZero();
        assertThat(figures.heldBefore()).isEmpty();
        assertThat(figures.oldestOverdue()).isEmpty();
        assertThat(figures.nextDue()).isEmpty();
        assertThat(figures.window().published()).isZero();
        assertThat(figures.window().failed()).isZero();
        assertThat(figures.window().retried()).isZero();
        assertThat(figures.window().lateness()).isEmpty();
        assertThat(figures.window().minutes()).isEmpty();
        assertThat(figures.recentFailures()).isEmpty();
        assertThat(figures.now()).isCloseTo(now(), within(1, ChronoUnit.MINUTES));
    }

    @Test
    void figures_pendingMessages_countTheOverdueAndNameTheOldestAndTheNextDue() {
        ScheduledMessage oldest = createdMessage(dueIn(Duration.ofSeconds(-90)));
        createdMessage(dueIn(Duration.ofSeconds(-30)));
        ScheduledMessage next = createdMessage(dueIn(Duration.ofHours(2)));
        createdMessage(dueIn(Duration.ofHours(3)));

        QueueFigures figures = queueStatistics().figures(HOUR, 10);

        assertThat(figures.byState()).containsEntry(StateName.SCHEDULED.wireName(), 4L);
        assertThat(figures.overdue()).isEqualTo(2);
        assertThat(figures.oldestOverdue()).contains(oldest.dueAt());
        // The test events are signed at their due time, so the reservation is the oldest overdue due time.
        assertThat(figures.heldBefore()).contains(oldest.dueAt());
        assertThat(figures.nextDue()).contains(next.dueAt());
        assertThat(figures.window().published()).isZero();
    }

    @Test
    void figures_endedDeliveries_fillTheWindowWithOutcomesLatenessAndFailuresButNotCancellations() {
        ScheduledMessage published = createdMessage(dueIn(Duration.ofSeconds(-40)));
        ScheduledMessage rejected = createdMessage(dueIn(Duration.ofSeconds(-30)));
        ScheduledMessage retried = createdMessage(dueIn(Duration.ofSeconds(-20)));
        ScheduledMessage cancelled = createdMessage(dueIn(Duration.ofHours(1)));
        assertThat(store.replace(cancelled, changed(cancelled.cancel(now())))).isTrue();
        Map<ScheduleId, ClaimedMessage> claimed = delivery.claim(10, LEASE).messages().stream()
                .collect(Collectors.toMap(m -> m.claim().id(), m -> m));
        assertThat(claimed).hasSize(3);
        ClaimedMessage p = claimed.get(published.id());
        ClaimedMessage f = claimed.get(rejected.id());
        ClaimedMessage r = claimed.get(retried.id());
        delivery.finish(List.of(new Finish.Publish(p.claim(), p.revision()),
                new Finish.Fail(f.claim(), f.revision(), FailureReason.RELAY_REJECTED, "blocked: spam"),
                new Finish.Retry(r.claim(), r.revision(), Duration.ofMinutes(5), Duration.ofMinutes(15),
                        "rate-limited: slow down")));

        QueueFigures figures = queueStatistics().figures(HOUR, 10);

        assertThat(figures.byState()).containsEntry(StateName.PUBLISHED.wireName(), 1L)
                .containsEntry(StateName.FAILED.wireName(), 1L)
                .containsEntry(StateName.SCHEDULED.wireName(), 1L)
                .containsEntry(StateName.CANCELLED.wireName(), 1L)
                .containsEntry(StateName.SENDING.wireName(), 0L);
        assertThat(figures.window().published()).isEqualTo(1);
        assertThat(figures.window().failed()).isEqualTo(1);
        assertThat(figures.window().retried()).isEqualTo(1);
        assertThat(figures.window().minutes().stream().mapToLong(MinuteFigures::published).sum()).isEqualTo(1);
        assertThat(figures.window().minutes().stream().mapToLong(MinuteFigures::failed).sum()).isEqualTo(1);
        // Published 40 s after its due time (and a little more, the time the test took).
        assertThat(figures.window().lateness()).hasValueSatisfying(lateness -> {
            assertThat(lateness.p50()).isBetween(39.0, 100.0);
            assertThat(lateness.max()).isEqualTo(lateness.p50());
        });
        assertThat(figures.recentFailures()).singleElement().satisfies(failure -> {
            assertThat(failure.id()).isEqualTo(rejected.id());
            assertThat(failure.owner()).isEqualTo(rejected.owner());
            assertThat(failure.channel()).isEqualTo(rejected.channel());
            assertThat(failure.reason()).isEqualTo(FailureReason.RELAY_REJECTED.wireName());
            assertThat(failure.detail()).hasValueSatisfying(detail -> assertThat(detail).contains("blocked: spam"));
            assertThat(failure.attempts()).isEqualTo(1);
        });
    }

    @Test
    void figures_outcomesOlderThanTheWindow_leaveItButStayCountedAndListed() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-10)));
        ClaimedMessage claimed = delivery.claim(1, LEASE).messages().get(0);
        delivery.finish(List.of(new Finish.Fail(claimed.claim(), claimed.revision(), FailureReason.RELAY_REJECTED,
                "blocked: spam")));
        letTimePass(Duration.ofHours(2));

        QueueFigures figures = queueStatistics().figures(HOUR, 10);

        assertThat(figures.window().failed()).isZero();
        assertThat(figures.window().minutes()).isEmpty();
        assertThat(figures.byState()).containsEntry(StateName.FAILED.wireName(), 1L);
        assertThat(figures.recentFailures()).extracting(RecentFailure::id).containsExactly(message.id());
    }

    @Test
    void figures_recentFailures_newestFirstAndNoMoreThanAsked() {
        failedNow();
        letTimePass(Duration.ofMinutes(1));
        ScheduledMessage second = failedNow();
        letTimePass(Duration.ofMinutes(1));
        ScheduledMessage third = failedNow();

        QueueFigures figures = queueStatistics().figures(HOUR, 2);

        assertThat(figures.recentFailures()).extracting(RecentFailure::id).containsExactly(third.id(), second.id());
        assertThat(figures.window().failed()).isEqualTo(3);
        assertThat(queueStatistics().figures(HOUR, 0).recentFailures()).isEmpty();
    }

    /** A message due now, claimed and failed {@code relay_rejected}. */
    private ScheduledMessage failedNow() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-1)));
        ClaimedMessage claimed = delivery.claim(1, LEASE).messages().get(0);
        assertThat(claimed.claim().id()).isEqualTo(message.id());
        delivery.finish(List.of(new Finish.Fail(claimed.claim(), claimed.revision(), FailureReason.RELAY_REJECTED,
                "blocked")));
        return message;
    }
}

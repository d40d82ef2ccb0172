package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.port.out.DeliveryStore.ClaimedBatch;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.DeliveryStore.FinishResult;
import buzz.scheduled.domain.schedule.AttemptOutcome;
import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What every {@link AttemptHistory} shows of the attempts the {@link DeliveryStore}'s finishing writes recorded, run
 * against the in-memory delivery store and PostgreSQL.
 */
public abstract class AttemptHistoryContract<S extends OwnerMessageQueries & MessageAdmission & OwnerMessageChanges>
        extends StoreContractSupport<S> {
    private static final Duration LATE = Duration.ofMinutes(15);
    private static final Duration RETRY = Duration.ofSeconds(30);

    /** The history over the rows of the store {@link #emptyStore()} made last and its {@link #deliveryStore()}. */
    protected abstract AttemptHistory attemptHistory();

    @Test
    void attempts_retriedThenRejected_showBothInOrderWithTheRelaysWordsAndTheFailureReason() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage first = single(delivery.claim(1, LEASE));
        FinishResult retried = finish(new Finish.Retry(first.claim(), first.revision(), RETRY, LATE,
                "rate-limited: slow down"));
        letTimePass(RETRY.plusSeconds(1));
        ClaimedMessage second = single(delivery.claim(1, LEASE));
        FinishResult rejected = finish(new Finish.Fail(second.claim(), second.revision(), FailureReason.RELAY_REJECTED,
                "blocked: not a member"));

        List<DeliveryAttempt> attempts = attemptHistory().attempts(message.id());

        assertThat(attempts).containsExactly(
                new DeliveryAttempt(1, Revision.FIRST, retried.at().orElseThrow(), new AttemptOutcome.Retry(),
                        Optional.of("rate-limited: slow down")),
                new DeliveryAttempt(2, Revision.FIRST, rejected.at().orElseThrow(),
                        new AttemptOutcome.Failed(FailureReason.RELAY_REJECTED), Optional.of("blocked: not a member")));
    }

    @Test
    void attempts_retriedThenPublished_endWithThePublicationAtItsTime() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage first = single(delivery.claim(1, LEASE));
        finish(new Finish.Retry(first.claim(), first.revision(), RETRY, LATE, ""));
        letTimePass(RETRY.plusSeconds(1));
        ClaimedMessage second = single(delivery.claim(1, LEASE));
        FinishResult published = finish(new Finish.Publish(second.claim(), second.revision()));

        List<DeliveryAttempt> attempts = attemptHistory().attempts(message.id());

        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0).outcome()).isEqualTo(new AttemptOutcome.Retry());
        assertThat(attempts.get(0).relayMessage()).as("no words: none recorded").isEmpty();
        assertThat(attempts.get(1)).isEqualTo(new DeliveryAttempt(2, Revision.FIRST, published.at().orElseThrow(),
                new AttemptOutcome.Published(), Optional.empty()));
    }

    @Test
    void attempts_retryPastTheLatenessLimit_isOneFailedExpiredAttempt() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));
        FinishResult expired = finish(new Finish.Retry(claimed.claim(), claimed.revision(), Duration.ofSeconds(10),
                Duration.ofSeconds(65), "timeout: no OK"));

        assertThat(attemptHistory().attempts(message.id())).containsExactly(new DeliveryAttempt(1, Revision.FIRST,
                expired.at().orElseThrow(), new AttemptOutcome.Failed(FailureReason.EXPIRED),
                Optional.of("timeout: no OK")));
    }

    @Test
    void attempts_releasedOrLostClaimsAndUnattemptedMessages_recordNothing() {
        ScheduledMessage released = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));
        finish(new Finish.Release(claimed.claim(), claimed.revision()));
        ClaimedMessage again = single(delivery.claim(1, LEASE));
        // A finish under a token that no longer holds the row (the claim before) changes nothing.
        finish(new Finish.Fail(claimed.claim(), claimed.revision(), FailureReason.RELAY_REJECTED, "stale"));
        ScheduledMessage future = createdMessage(dueIn(Duration.ofHours(1)));

        assertThat(again.claim().id()).isEqualTo(released.id());
        assertThat(attemptHistory().attempts(released.id())).isEmpty();
        assertThat(attemptHistory().attempts(future.id())).isEmpty();
        assertThat(attemptHistory().attempts(new ScheduleId(UUID.randomUUID()))).isEmpty();
    }

    private FinishResult finish(Finish finish) {
        return delivery.finish(List.of(finish)).get(0);
    }

    private static ClaimedMessage single(ClaimedBatch batch) {
        assertThat(batch.messages()).hasSize(1);
        return batch.messages().get(0);
    }
}

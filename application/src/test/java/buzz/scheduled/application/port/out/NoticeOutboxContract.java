package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.NoticeOutbox.Queued;
import buzz.scheduled.domain.notice.MessageOutcome;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link NoticeOutbox} must have, run against the fake and PostgreSQL (where outcomes are queued
 * by the database's trigger when a message row ends).
 */
public abstract class NoticeOutboxContract {
    private static final Duration LEASE = Duration.ofMinutes(2);

    protected NoticeOutbox outbox;

    /** An empty outbox, switched on. */
    protected abstract NoticeOutbox emptyOutbox();

    /** A message of {@code outcome.owner()} ends as {@code outcome} says (an owner who wants to be told of it). */
    protected abstract void messageEnded(MessageOutcome outcome);

    /** The store's clock moves on by {@code duration}. */
    protected abstract void timePasses(Duration duration);

    @BeforeEach
    void setUp() {
        outbox = emptyOutbox();
    }

    protected static MessageOutcome failure(PublicKey owner, FailureReason reason, String words) {
        Instant due = Instant.parse("2030-01-02T03:04:05Z");
        return new MessageOutcome(owner, new ScheduleId(UUID.randomUUID()), new Channel("general"),
                new EventId(String.format("%064x", System.nanoTime())), due, due.plusSeconds(3),
                new MessageOutcome.Result.Failed(reason, Optional.ofNullable(words)));
    }

    @Test
    void take_outcomeOfAMessageThatEnded_isTakenOnceWithItsFacts() {
        MessageOutcome failed = failure(TestEvents.ALICE, FailureReason.ACCESS_DENIED, "blocked: not a member");
        messageEnded(failed);

        List<Queued> first = outbox.take(10, LEASE);
        List<Queued> second = outbox.take(10, LEASE);

        assertThat(first).singleElement().satisfies(queued -> {
            assertThat(queued.outcome()).isEqualTo(failed);
            assertThat(queued.attempts()).isZero();
        });
        assertThat(second).isEmpty();
    }

    @Test
    void take_outcomeMadeWhileSwitchedOff_isNeverQueued() {
        outbox.switchTo(false);
        messageEnded(failure(TestEvents.ALICE, FailureReason.EXPIRED, null));
        outbox.switchTo(true);

        assertThat(outbox.take(10, LEASE)).isEmpty();
    }

    @Test
    void take_afterTheLeasePassedUnsent_givesItAgainWithTheAttemptCounted() {
        messageEnded(failure(TestEvents.ALICE, FailureReason.EXPIRED, null));
        outbox.take(10, LEASE);

        timePasses(LEASE.plusSeconds(1));

        assertThat(outbox.take(10, LEASE)).singleElement().satisfies(queued ->
                assertThat(queued.attempts()).isEqualTo(1));
    }

    @Test
    void sent_outcome_isNeverTakenAgainAndCountsOneNoticeForItsOwnerOnly() {
        messageEnded(failure(TestEvents.ALICE, FailureReason.RELAY_REJECTED, "invalid: bad"));
        Queued queued = outbox.take(10, LEASE).get(0);

        outbox.sent(TestEvents.ALICE, List.of(queued.id()), new EventId("c".repeat(64)));
        timePasses(LEASE.plusSeconds(1));

        assertThat(outbox.take(10, LEASE)).isEmpty();
        assertThat(outbox.sentWithin(TestEvents.ALICE, Duration.ofHours(1))).isEqualTo(1);
        assertThat(outbox.sentWithin(TestEvents.BOB, Duration.ofHours(1))).isZero();
    }

    @Test
    void sentWithin_noticesOlderThanTheWindow_areNotCounted() {
        messageEnded(failure(TestEvents.ALICE, FailureReason.RELAY_REJECTED, null));
        outbox.sent(TestEvents.ALICE, List.of(outbox.take(10, LEASE).get(0).id()), new EventId("c".repeat(64)));

        timePasses(Duration.ofMinutes(61));

        assertThat(outbox.sentWithin(TestEvents.ALICE, Duration.ofHours(1))).isZero();
    }

    @Test
    void retryLater_holdsThoseBackUntilTheDelayPassed_andNotTheOthers() {
        messageEnded(failure(TestEvents.ALICE, FailureReason.EXPIRED, null));
        messageEnded(failure(TestEvents.BOB, FailureReason.EXPIRED, null));
        List<Queued> both = outbox.take(10, Duration.ofMillis(1));
        Queued alice = both.stream().filter(q -> q.outcome().owner().equals(TestEvents.ALICE)).findFirst()
                .orElseThrow();

        outbox.retryLater(List.of(alice.id()), Duration.ofMinutes(10), "no relay took it");
        timePasses(Duration.ofSeconds(1));
        List<Queued> soon = outbox.take(10, LEASE);
        timePasses(Duration.ofMinutes(10));
        List<Queued> later = outbox.take(10, LEASE);

        assertThat(both).hasSize(2);
        assertThat(soon).extracting(q -> q.outcome().owner()).containsExactly(TestEvents.BOB);
        assertThat(later).extracting(q -> q.outcome().owner()).contains(TestEvents.ALICE);
    }
}

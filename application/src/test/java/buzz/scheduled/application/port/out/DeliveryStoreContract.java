package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import buzz.scheduled.application.port.out.DeliveryStore.Claim;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedBatch;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.EarlierSend;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.application.port.out.DeliveryStore.FinishResult;
import buzz.scheduled.application.port.out.DeliveryStore.Written;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link DeliveryStore} must have, run against the in-memory fake (whose every write is the
 * domain's own transition) and PostgreSQL, so the SQL of the hot path is checked against the domain. Times are the
 * store's own clock.
 */
public abstract class DeliveryStoreContract<S extends OwnerMessageQueries & MessageAdmission & OwnerMessageChanges>
        extends StoreContractSupport<S> {
    private static final Duration LATE = Duration.ofMinutes(15);

    // ------------------------------------------------------------------------------------------------------
    // claim

    @Test
    void claim_mixOfDueAndFutureMessages_claimsOnlyDueOnesEarliestFirstStraightIntoSending() {
        ScheduledMessage older = createdMessage(dueIn(Duration.ofSeconds(-120)));
        ScheduledMessage newer = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage future = createdMessage(dueIn(Duration.ofHours(1)));
        Instant before = now();

        ClaimedBatch batch = delivery.claim(10, LEASE);

        assertThat(batch.messages()).extracting(m -> m.claim().id())
                .containsExactlyInAnyOrder(older.id(), newer.id());
        Instant now = batch.now().orElseThrow();
        assertThat(now).isBetween(before, now());
        for (ClaimedMessage claimed : batch.messages()) {
            ScheduledMessage admitted = claimed.claim().id().equals(older.id()) ? older : newer;
            assertThat(claimed.revision()).isEqualTo(Revision.FIRST);
            assertThat(claimed.eventId()).isEqualTo(admitted.eventId());
            assertThat(claimed.eventJson()).isEqualTo(NostrEventJson.write(admitted.event().orElseThrow()));
            assertThat(claimed.owner()).isEqualTo(admitted.owner());
            assertThat(claimed.channel()).isEqualTo(admitted.channel());
            assertThat(claimed.dueAt()).isEqualTo(admitted.dueAt());
            assertThat(claimed.leaseUntil()).isEqualTo(now.plus(LEASE));
            assertThat(claimed.attempts()).isEqualTo(1);
            assertThat(claimed.channelDeleted()).isFalse();
            ScheduledMessage stored = store.find(admitted.id()).orElseThrow();
            assertThat(stored.state()).isEqualTo(new ScheduleState.Sending(claimed.claim().token(), now.plus(LEASE)));
            assertThat(stored.attempts()).isEqualTo(1);
            assertThat(stored.event()).isEqualTo(admitted.event());
        }
        assertThat(store.find(future.id()).orElseThrow().state()).isEqualTo(ScheduleState.Scheduled.NOW);
    }

    @Test
    void claim_returnsEachEventsKind_evenWhenItsContentAndTagsSpellAnotherKind() {
        ScheduledMessage chat = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(-60)).kind(9).content("{\"kind\": 7, \"kind\":5}")
                        .tag("kind", "3").build()));
        ScheduledMessage note = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(-30)).kind(1).content("\"kind\":42").build()));

        List<ClaimedMessage> claimed = delivery.claim(10, LEASE).messages();

        assertThat(claimed).extracting(m -> m.claim().id(), ClaimedMessage::kind).containsExactlyInAnyOrder(
                tuple(chat.id(), 9), tuple(note.id(), 1));
    }

    @Test
    void claim_moreDueThanTheLimit_claimsTheEarliestUpToTheLimit() {
        List<ScheduledMessage> due = new ArrayList<>();
        for (int i = 5; i >= 1; i--) {
            due.add(createdMessage(dueIn(Duration.ofSeconds(-60L * i))));
        }

        ClaimedBatch first = delivery.claim(3, LEASE);
        ClaimedBatch rest = delivery.claim(3, LEASE);
        ClaimedBatch none = delivery.claim(3, LEASE);

        assertThat(ids(first)).containsExactlyInAnyOrder(due.get(0).id(), due.get(1).id(), due.get(2).id());
        assertThat(ids(rest)).containsExactlyInAnyOrder(due.get(3).id(), due.get(4).id());
        assertThat(none.messages()).isEmpty();
        assertThat(token(rest).value()).as("fencing tokens only grow").isGreaterThan(token(first).value());
    }

    @Test
    void claim_eventWithTextBeyondAscii_carriesItsExactUtf8Length() {
        // Two-, three- and four-byte UTF-8 (é, €, an emoji as a surrogate pair) around plain ASCII.
        NostrEvent event = TestEvents.at(inSeconds(-10)).content("café € \uD83D\uDE80 rocket").build();
        createdMessage(message(new ScheduleId(UUID.randomUUID()), event));

        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        assertThat(claimed.eventJsonBytes())
                .isEqualTo(claimed.eventJson().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                .isGreaterThan(claimed.eventJson().length());
    }

    @Test
    void claim_deletedChannel_claimsItWithTheTombstoneFactForThePreSendCheck() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-10)));
        deleteChannel(message.channel());

        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        assertThat(claimed.channelDeleted()).isTrue();
    }

    @Test
    void claim_retryTimeStillAhead_waitsForTheRetryTime() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));
        assertThat(written(new Finish.Retry(claimed.claim(), claimed.revision(), Duration.ofSeconds(30), LATE, "x")))
                .isEqualTo(Written.RESCHEDULED);

        ClaimedBatch tooEarly = delivery.claim(1, LEASE);
        letTimePass(Duration.ofSeconds(31));
        ClaimedMessage again = single(delivery.claim(1, LEASE));

        assertThat(tooEarly.messages()).isEmpty();
        assertThat(again.claim().id()).isEqualTo(claimed.claim().id());
        assertThat(again.attempts()).isEqualTo(2);
        assertThat(again.claim().token().value()).isGreaterThan(claimed.claim().token().value());
    }

    @Test
    void claim_concurrentClaimers_neverGetTheSameMessage() throws Exception {
        List<ScheduleId> due = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            due.add(createdMessage(dueIn(Duration.ofSeconds(-1 - i))).id());
        }
        ConcurrentLinkedQueue<ScheduleId> claimedIds = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Claim> claims = new ConcurrentLinkedQueue<>();
        List<Callable<Integer>> claimers = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            claimers.add(() -> {
                int batches = 0;
                ClaimedBatch batch;
                while (!(batch = delivery.claim(7, LEASE)).messages().isEmpty()) {
                    batch.messages().forEach(m -> {
                        claimedIds.add(m.claim().id());
                        claims.add(m.claim());
                    });
                    batches++;
                }
                return batches;
            });
        }

        concurrently(claimers);

        assertThat(claimedIds).hasSize(120).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(due);
        assertThat(claims).doesNotHaveDuplicates();
    }

    @Test
    void claim_thenTheOwnersWriteFromAnEarlierRead_changesNothing() {
        ScheduledMessage read = createdMessage(dueIn(Duration.ofSeconds(-5)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        boolean cancelled = store.replace(read, changed(read.cancel(now())));

        assertThat(cancelled).isFalse();
        assertThat(store.find(read.id()).orElseThrow().state())
                .isEqualTo(new ScheduleState.Sending(claimed.claim().token(), claimed.leaseUntil()));
    }

    // ------------------------------------------------------------------------------------------------------
    // finish

    @Test
    void finish_publish_publishesOnceKeepsTheEventAndAnswersTheStoreClock() {
        ScheduledMessage admitted = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));
        Instant before = now();

        FinishResult first = delivery.finish(List.of(new Finish.Publish(claimed.claim(), claimed.revision()))).get(0);
        FinishResult again = delivery.finish(List.of(new Finish.Publish(claimed.claim(), claimed.revision()))).get(0);

        assertThat(first.written()).isEqualTo(Written.PUBLISHED);
        assertThat(first.at()).hasValueSatisfying(at -> assertThat(at).isBetween(before, now()));
        assertThat(again).as("only once").isEqualTo(new FinishResult(Written.LOST, Optional.empty()));
        ScheduledMessage stored = store.find(admitted.id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(new ScheduleState.Published(first.at().orElseThrow()));
        assertThat(stored.event()).isEqualTo(admitted.event());
        assertThat(stored.token()).isEmpty();
        assertThat(stored.attempts()).isEqualTo(1);
    }

    @Test
    void finish_retry_reschedulesNotBeforeTheDelayWithoutTheClaim() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        FinishResult result = delivery.finish(List.of(new Finish.Retry(claimed.claim(), claimed.revision(),
                Duration.ofSeconds(40), LATE, "rate-limited: slow down"))).get(0);

        assertThat(result.written()).isEqualTo(Written.RESCHEDULED);
        Instant at = result.at().orElseThrow();
        ScheduledMessage stored = store.find(claimed.claim().id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(new ScheduleState.Scheduled(Optional.of(at.plusSeconds(40))));
        assertThat(stored.token()).isEmpty();
        assertThat(stored.event()).isPresent();
        assertThat(delivery.nextDueAt()).contains(at.plusSeconds(40));
    }

    @Test
    void finish_retryPastTheLatenessLimit_failsExpiredKeepingTheEventForARequeue() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        FinishResult result = delivery.finish(List.of(new Finish.Retry(claimed.claim(), claimed.revision(),
                Duration.ofSeconds(10), Duration.ofSeconds(65), "timeout: no OK"))).get(0);

        assertThat(result.written()).isEqualTo(Written.EXPIRED);
        ScheduledMessage stored = store.find(claimed.claim().id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(new ScheduleState.Failed(FailureReason.EXPIRED, result.at().orElseThrow()));
        assertThat(stored.event()).isPresent();
    }

    @Test
    void finish_fail_endsItWithTheReasonKeepingTheEventForARequeue() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        FinishResult result = delivery.finish(List.of(new Finish.Fail(claimed.claim(), claimed.revision(),
                FailureReason.RELAY_REJECTED, "blocked: no"))).get(0);

        assertThat(result.written()).isEqualTo(Written.FAILED);
        ScheduledMessage stored = store.find(claimed.claim().id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(new ScheduleState.Failed(FailureReason.RELAY_REJECTED,
                result.at().orElseThrow()));
        assertThat(stored.event()).isPresent();
        assertThat(stored.eventId()).isEqualTo(claimed.eventId());
    }

    @Test
    void finish_failChannelDeleted_purgesTheEvent() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        FinishResult result = delivery.finish(List.of(new Finish.Fail(claimed.claim(), claimed.revision(),
                FailureReason.CHANNEL_DELETED, "channel general was deleted"))).get(0);

        assertThat(result.written()).isEqualTo(Written.FAILED);
        ScheduledMessage stored = store.find(claimed.claim().id()).orElseThrow();
        assertThat(stored.failureReason()).contains(FailureReason.CHANNEL_DELETED);
        assertThat(stored.event()).isEmpty();
    }

    @Test
    void finish_relayWordsWithANulCharacter_areRecordedAndTheMessageLeavesSending() {
        // A relay's OK message is any JSON string: "\u0000" in it is legal JSON, but PostgreSQL text refuses it.
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        FinishResult result = delivery.finish(List.of(new Finish.Retry(claimed.claim(), claimed.revision(),
                Duration.ofSeconds(40), LATE, "error: \u0000 odd"))).get(0);

        assertThat(result.written()).isEqualTo(Written.RESCHEDULED);
        assertThat(store.find(claimed.claim().id()).orElseThrow().state())
                .isInstanceOf(ScheduleState.Scheduled.class);
    }

    @Test
    void finish_release_makesItClaimableAtOnceKeepingItsAttempts() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        assertThat(written(new Finish.Release(claimed.claim(), claimed.revision()))).isEqualTo(Written.RESCHEDULED);

        ScheduledMessage stored = store.find(claimed.claim().id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(ScheduleState.Scheduled.NOW);
        assertThat(stored.attempts()).isEqualTo(1);
        ClaimedMessage again = single(delivery.claim(1, LEASE));
        assertThat(again.claim().id()).isEqualTo(claimed.claim().id());
    }

    @Test
    void claim_ofARowNeverSentWithoutARecordedOutcome_saysNoEarlierSend() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));
        written(new Finish.Release(claimed.claim(), claimed.revision()));

        ClaimedMessage again = single(delivery.claim(1, LEASE));

        assertThat(claimed.earlierSend()).isEqualTo(EarlierSend.NONE);
        assertThat(again.earlierSend()).as("a release gives back a frame never written").isEqualTo(EarlierSend.NONE);
    }

    @Test
    void finish_unresolved_makesItClaimableAtOnce_andTheNextClaimSaysTheOutcomeIsUnknown() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));

        assertThat(written(new Finish.Unresolved(claimed.claim(), claimed.revision())))
                .isEqualTo(Written.RESCHEDULED);

        ScheduledMessage stored = store.find(claimed.claim().id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(ScheduleState.Scheduled.NOW);
        assertThat(stored.attempts()).isEqualTo(1);
        ClaimedMessage again = single(delivery.claim(1, LEASE));
        assertThat(again.claim().id()).isEqualTo(claimed.claim().id());
        assertThat(again.earlierSend()).isEqualTo(EarlierSend.OUTCOME_UNKNOWN);
    }

    @Test
    void reap_ofARowInSending_leavesNoMark_theNextClaimSendsAgain() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        single(delivery.claim(1, Duration.ofSeconds(10)));
        letTimePass(Duration.ofSeconds(20));

        delivery.reap(Duration.ofSeconds(5));
        ClaimedMessage again = single(delivery.claim(1, LEASE));

        assertThat(again.attempts()).isEqualTo(2);
        assertThat(again.earlierSend()).isEqualTo(EarlierSend.NONE);
    }

    @Test
    void finish_anotherTokenOrRevision_isLostAndChangesNothing() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));
        ScheduledMessage before = store.find(claimed.claim().id()).orElseThrow();
        Claim stale = new Claim(claimed.claim().id(), new FencingToken(claimed.claim().token().value() + 1000));

        List<FinishResult> results = delivery.finish(List.of(
                new Finish.Publish(stale, claimed.revision()),
                new Finish.Fail(claimed.claim(), claimed.revision().next(), FailureReason.EXPIRED, ""),
                new Finish.Release(stale, claimed.revision())));

        assertThat(results).extracting(FinishResult::written).containsOnly(Written.LOST);
        assertThat(store.find(claimed.claim().id())).contains(before);
    }

    @Test
    void finish_mixedSet_answersEachOutcomeByItsPosition() {
        for (int i = 0; i < 5; i++) {
            createdMessage(dueIn(Duration.ofSeconds(-60 - i)));
        }
        List<ClaimedMessage> claimed = new ArrayList<>(delivery.claim(5, LEASE).messages());
        claimed.sort((a, b) -> a.claim().id().toString().compareTo(b.claim().id().toString()));
        Claim stale = new Claim(claimed.get(4).claim().id(),
                new FencingToken(claimed.get(4).claim().token().value() + 99));

        List<FinishResult> results = delivery.finish(List.of(
                new Finish.Fail(claimed.get(3).claim(), claimed.get(3).revision(), FailureReason.ACCESS_DENIED, ""),
                new Finish.Publish(stale, claimed.get(4).revision()),
                new Finish.Release(claimed.get(2).claim(), claimed.get(2).revision()),
                new Finish.Publish(claimed.get(0).claim(), claimed.get(0).revision()),
                new Finish.Retry(claimed.get(1).claim(), claimed.get(1).revision(), Duration.ofSeconds(5), LATE, "")));

        assertThat(results).extracting(FinishResult::written).containsExactly(Written.FAILED, Written.LOST,
                Written.RESCHEDULED, Written.PUBLISHED, Written.RESCHEDULED);
        assertThat(state(claimed.get(0))).isInstanceOf(ScheduleState.Published.class);
        assertThat(state(claimed.get(1))).isInstanceOfSatisfying(ScheduleState.Scheduled.class,
                s -> assertThat(s.retryAt()).isPresent());
        assertThat(state(claimed.get(2))).isEqualTo(ScheduleState.Scheduled.NOW);
        assertThat(state(claimed.get(3))).isInstanceOfSatisfying(ScheduleState.Failed.class,
                f -> assertThat(f.reason()).isEqualTo(FailureReason.ACCESS_DENIED));
        assertThat(state(claimed.get(4))).isInstanceOf(ScheduleState.Sending.class);
    }

    @Test
    void finish_staleTokenAfterReapAndReclaim_isLost() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage first = single(delivery.claim(10, LEASE));
        letTimePass(LEASE.plusSeconds(5));
        assertThat(delivery.reap(Duration.ZERO)).isEqualTo(1);
        ClaimedMessage second = single(delivery.claim(10, LEASE));

        FinishResult stale = delivery.finish(List.of(new Finish.Publish(first.claim(), first.revision()))).get(0);

        assertThat(stale.written()).isEqualTo(Written.LOST);
        ScheduledMessage found = store.find(first.claim().id()).orElseThrow();
        assertThat(found.state()).isInstanceOf(ScheduleState.Sending.class);
        assertThat(found.token()).contains(second.claim().token());
        assertThat(second.claim().token().value()).isGreaterThan(first.claim().token().value());
    }

    @Test
    void finish_racingTheReaperAtTheLeaseEnd_exactlyOneOfThemWins() throws Exception {
        for (int round = 0; round < 10; round++) {
            createdMessage(dueIn(Duration.ofSeconds(-60)));
            ClaimedMessage claimed = single(delivery.claim(1, LEASE));
            letTimePass(LEASE.plusSeconds(1));

            List<Object> results = concurrently(List.<Callable<Object>>of(
                    () -> delivery.finish(List.of(new Finish.Publish(claimed.claim(), claimed.revision()))).get(0),
                    () -> delivery.reap(Duration.ZERO)));

            boolean finished = ((FinishResult) results.get(0)).recorded();
            int reaped = (Integer) results.get(1);
            assertThat(finished).as("round %d: exactly one of publish (%s) and reap (%s)", round, finished, reaped)
                    .isNotEqualTo(reaped == 1);
            ScheduleState end = store.find(claimed.claim().id()).orElseThrow().state();
            assertThat(end).isInstanceOf(finished ? ScheduleState.Published.class : ScheduleState.Scheduled.class);
            for (ClaimedMessage left : delivery.claim(10, LEASE).messages()) {
                assertThat(written(new Finish.Fail(left.claim(), left.revision(), FailureReason.EXPIRED, "")))
                        .isEqualTo(Written.FAILED);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // renew / reap / next due

    @Test
    void renew_heldAndStaleClaims_extendsOnlyTheHeldOne() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        createdMessage(dueIn(Duration.ofSeconds(-30)));
        List<ClaimedMessage> claimed = delivery.claim(2, LEASE).messages();
        ClaimedMessage held = claimed.get(0);
        ClaimedMessage other = claimed.get(1);
        Claim wrong = new Claim(other.claim().id(), new FencingToken(other.claim().token().value() + 1000));

        Set<ScheduleId> renewed = delivery.renew(List.of(held.claim(), wrong), Duration.ofHours(1));

        assertThat(renewed).containsExactly(held.claim().id());
        assertThat(leaseUntil(store.find(held.claim().id()).orElseThrow()))
                .isAfter(now().plus(Duration.ofMinutes(59)));
        assertThat(leaseUntil(store.find(other.claim().id()).orElseThrow())).isEqualTo(other.leaseUntil());
        assertThat(delivery.renew(List.of(), LEASE)).isEmpty();
    }

    @Test
    void reap_expiredAndLiveClaims_returnsOnlyExpiredOnesToScheduledOnce() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage shortLease = single(delivery.claim(1, Duration.ofSeconds(10)));
        createdMessage(dueIn(Duration.ofSeconds(-30)));
        ClaimedMessage longLease = single(delivery.claim(1, Duration.ofHours(1)));
        letTimePass(Duration.ofSeconds(20));

        int reaped = delivery.reap(Duration.ofSeconds(5));
        int again = delivery.reap(Duration.ofSeconds(5));

        assertThat(reaped).isEqualTo(1);
        assertThat(again).isZero();
        ScheduledMessage returned = store.find(shortLease.claim().id()).orElseThrow();
        assertThat(returned.state()).isEqualTo(ScheduleState.Scheduled.NOW);
        assertThat(returned.token()).isEmpty();
        assertThat(returned.attempts()).isEqualTo(1);
        assertThat(store.find(longLease.claim().id()).orElseThrow().state()).isInstanceOf(ScheduleState.Sending.class);
    }

    @Test
    void reap_withinGrace_leavesTheClaim() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, Duration.ofSeconds(10)));
        letTimePass(Duration.ofSeconds(15));

        int reaped = delivery.reap(Duration.ofSeconds(30));

        assertThat(reaped).isZero();
        assertThat(store.find(claimed.claim().id()).orElseThrow().token()).contains(claimed.claim().token());
    }

    @Test
    void nextDueAt_scheduledInFlightAndRetryingMessages_isTheEarliestClaimableTime() {
        assertThat(delivery.nextDueAt()).isEmpty();
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = single(delivery.claim(1, LEASE));
        ScheduledMessage later = createdMessage(dueIn(Duration.ofHours(2)));
        ScheduledMessage sooner = createdMessage(dueIn(Duration.ofHours(1)));

        Optional<Instant> withoutRetry = delivery.nextDueAt();
        FinishResult retried = delivery.finish(List.of(new Finish.Retry(claimed.claim(), claimed.revision(),
                Duration.ofSeconds(600), Duration.ofDays(1), ""))).get(0);

        assertThat(withoutRetry).as("the message in flight is not claimable").contains(sooner.dueAt());
        assertThat(delivery.nextDueAt()).contains(retried.at().orElseThrow().plusSeconds(600));
        assertThat(later.dueAt()).isAfter(sooner.dueAt());
    }

    // ------------------------------------------------------------------------------------------------------
    // helpers

    private Written written(Finish finish) {
        return delivery.finish(List.of(finish)).get(0).written();
    }

    private ScheduleState state(ClaimedMessage claimed) {
        return store.find(claimed.claim().id()).orElseThrow().state();
    }

    private static ClaimedMessage single(ClaimedBatch batch) {
        assertThat(batch.messages()).hasSize(1);
        return batch.messages().get(0);
    }

    private static List<ScheduleId> ids(ClaimedBatch batch) {
        return batch.messages().stream().map(m -> m.claim().id()).toList();
    }

    private static FencingToken token(ClaimedBatch batch) {
        Set<FencingToken> tokens = new HashSet<>();
        batch.messages().forEach(m -> tokens.add(m.claim().token()));
        assertThat(tokens).as("one claim statement, one token").hasSize(1);
        return tokens.iterator().next();
    }
}

package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.in.ReservationsUseCase.Reservations;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.MessageAdmission.CreateResult;
import buzz.scheduled.application.port.out.MessageAdmission.IdempotencyKey;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.OwnerOutcome;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ChannelAdministration} must have, run against the in-memory fake (application
 * tests) and PostgreSQL (adapters-postgres). Messages are put in place through the owner side's ports
 * and domain transitions, and times are taken from the store's own clock.
 */
public abstract class ChannelAdministrationContract<
        S extends OwnerMessageQueries & MessageAdmission & OwnerMessageChanges> {

    protected static final CreateLimits NO_LIMITS = new CreateLimits(10_000, 10_000, Duration.ofMinutes(5));
    protected static final Duration LEASE = Duration.ofMinutes(5);
    protected static final PublicKey ALICE = TestEvents.ALICE;
    protected static final PublicKey BOB = TestEvents.BOB;
    protected static final Channel GENERAL = new Channel("general");
    protected static final Channel RANDOM = new Channel("random");

    protected S store;
    protected DeliveryStore delivery;
    protected ChannelAdministration administration;

    /** A store with no messages, keys or tombstones. */
    protected abstract S emptyStore();

    /** The administration port over the store {@link #emptyStore()} returned last. */
    protected abstract ChannelAdministration administration();

    /** The delivery store over the store {@link #emptyStore()} returned last. */
    protected abstract DeliveryStore deliveryStore();

    /** Makes {@code duration} pass on the store's clock, as far as every stored time is concerned. */
    protected abstract void letTimePass(Duration duration);

    /** Whether any copy of the message's event payload is still stored (current row or revision history). */
    protected abstract boolean payloadStored(ScheduleId id);

    @BeforeEach
    void open() {
        store = emptyStore();
        administration = administration();
        delivery = deliveryStore();
    }

    // ------------------------------------------------------------------------------------------------------
    // channel deletion

    @Test
    void deleteChannel_pendingMessages_failChannelDeletedAndLoseTheirPayloads() {
        ScheduledMessage scheduled = created(ALICE, GENERAL, Duration.ofHours(1));
        ScheduledMessage retrying = retrying(created(BOB, GENERAL, Duration.ofSeconds(-30)));

        ChannelDeleted deleted = administration.deleteChannel(GENERAL);

        assertThat(deleted).isEqualTo(new ChannelDeleted(2, 2, 0, true));
        for (ScheduledMessage before : List.of(scheduled, retrying)) {
            ScheduledMessage after = store.find(before.id()).orElseThrow();
            assertThat(after.failureReason()).contains(FailureReason.CHANNEL_DELETED);
            assertThat(after.event()).isEmpty();
            assertThat(after.token()).isEmpty();
            assertThat(payloadStored(before.id())).isFalse();
        }
    }

    @Test
    void deleteChannel_revisedMessage_purgesEveryRevisionsPayload() {
        ScheduledMessage first = created(ALICE, GENERAL, Duration.ofHours(1));
        ScheduledMessage second = revised(first, TestEvents.at(inSeconds(7200)).channel("general").build());

        administration.deleteChannel(GENERAL);

        assertThat(store.find(second.id()).orElseThrow().revision()).isEqualTo(second.revision());
        assertThat(payloadStored(first.id())).isFalse();
    }

    @Test
    void deleteChannel_otherChannels_areUntouched() {
        ScheduledMessage elsewhere = created(ALICE, RANDOM, Duration.ofHours(1));

        administration.deleteChannel(GENERAL);

        assertThat(store.find(elsewhere.id())).contains(elsewhere);
        assertThat(payloadStored(elsewhere.id())).isTrue();
        assertThat(store.channelDeleted(RANDOM)).isFalse();
    }

    @Test
    void deleteChannel_publishedMessage_keepsItsStateButLosesItsPayload() {
        ScheduledMessage published = published(created(ALICE, GENERAL, Duration.ofSeconds(-30)));

        ChannelDeleted deleted = administration.deleteChannel(GENERAL);

        ScheduledMessage after = store.find(published.id()).orElseThrow();
        assertThat(deleted).isEqualTo(new ChannelDeleted(0, 1, 0, true));
        assertThat(after.state().wireName()).isEqualTo("published");
        assertThat(after.publishedAt()).isEqualTo(published.publishedAt());
        assertThat(after.event()).isEmpty();
        assertThat(payloadStored(published.id())).isFalse();
    }

    @Test
    void deleteChannel_sendingMessage_isLeftToItsFinishingWriteAndPurgedByARepeat() {
        ScheduledMessage sending = sending(created(ALICE, GENERAL, Duration.ofSeconds(-30)));

        ChannelDeleted first = administration.deleteChannel(GENERAL);
        ScheduledMessage stillSending = store.find(sending.id()).orElseThrow();
        boolean finishingWrite = finish(new DeliveryStore.Finish.Publish(new DeliveryStore.Claim(sending.id(),
                sending.token().orElseThrow()), sending.revision()));
        ChannelDeleted repeat = administration.deleteChannel(GENERAL);

        assertThat(first).isEqualTo(new ChannelDeleted(0, 0, 1, true));
        assertThat(stillSending).isEqualTo(sending);
        assertThat(finishingWrite).isTrue();
        assertThat(repeat).isEqualTo(new ChannelDeleted(0, 1, 0, false));
        assertThat(payloadStored(sending.id())).isFalse();
    }

    @Test
    void deleteChannel_afterwards_refusesCreatesAndReportsTheTombstone() {
        ChannelDeleted first = administration.deleteChannel(GENERAL);
        ChannelDeleted second = administration.deleteChannel(GENERAL);
        ScheduledMessage late = message(ALICE, GENERAL, Duration.ofHours(1));

        CreateResult result = store.create(late, keyOf(late), NO_LIMITS);

        assertThat(first.newlyDeleted()).isTrue();
        assertThat(second).isEqualTo(new ChannelDeleted(0, 0, 0, false));
        assertThat(store.channelDeleted(GENERAL)).isTrue();
        assertThat(result).isEqualTo(new CreateResult.ChannelDeleted());
        assertThat(store.find(late.id())).isEmpty();
    }

    @Test
    void deleteChannel_racingCreates_leaveNoPendingMessageBehindTheTombstone() throws Exception {
        List<ScheduledMessage> attempts = new java.util.ArrayList<>();
        for (int i = 0; i < 24; i++) {
            attempts.add(message(i % 2 == 0 ? ALICE : BOB, GENERAL, Duration.ofHours(1).plusSeconds(i)));
        }
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        try {
            List<java.util.concurrent.Future<CreateResult>> creates = new java.util.ArrayList<>();
            for (ScheduledMessage attempt : attempts) {
                creates.add(threads.submit(() -> {
                    go.await();
                    return store.create(attempt, keyOf(attempt), NO_LIMITS);
                }));
            }
            java.util.concurrent.Future<ChannelDeleted> deletion = threads.submit(() -> {
                go.await();
                return administration.deleteChannel(GENERAL);
            });
            go.countDown();
            int created = 0;
            for (java.util.concurrent.Future<CreateResult> create : creates) {
                CreateResult result = create.get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(result).isInstanceOfAny(CreateResult.Created.class, CreateResult.ChannelDeleted.class);
                created += result instanceof CreateResult.Created ? 1 : 0;
            }
            ChannelDeleted deleted = deletion.get(30, java.util.concurrent.TimeUnit.SECONDS);

            assertThat(deleted.failed()).isEqualTo(created);
            for (ScheduledMessage attempt : attempts) {
                store.find(attempt.id()).ifPresent(row -> {
                    assertThat(row.failureReason()).contains(FailureReason.CHANNEL_DELETED);
                    assertThat(payloadStored(row.id())).isFalse();
                });
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void deleteChannel_cancelledAndFailedMessages_keepTheirStates() {
        ScheduledMessage cancelled = cancelled(created(ALICE, GENERAL, Duration.ofHours(1)));

        ChannelDeleted deleted = administration.deleteChannel(GENERAL);

        assertThat(deleted).isEqualTo(new ChannelDeleted(0, 0, 0, true));
        assertThat(store.find(cancelled.id())).contains(cancelled);
    }

    // ------------------------------------------------------------------------------------------------------
    // member removal

    @Test
    void removeMember_failsOnlyThatMembersPendingMessagesInThatChannel() {
        ScheduledMessage alicesHere = created(ALICE, GENERAL, Duration.ofHours(1));
        ScheduledMessage alicesRetrying = retrying(created(ALICE, GENERAL, Duration.ofSeconds(-30)));
        ScheduledMessage alicesElsewhere = created(ALICE, RANDOM, Duration.ofHours(1));
        ScheduledMessage bobsHere = created(BOB, GENERAL, Duration.ofHours(1));

        MemberRemoved removed = administration.removeMember(GENERAL, ALICE);
        MemberRemoved repeat = administration.removeMember(GENERAL, ALICE);

        assertThat(removed).isEqualTo(new MemberRemoved(2, 0));
        assertThat(repeat).isEqualTo(new MemberRemoved(0, 0));
        for (ScheduledMessage before : List.of(alicesHere, alicesRetrying)) {
            ScheduledMessage after = store.find(before.id()).orElseThrow();
            assertThat(after.failureReason()).contains(FailureReason.MEMBER_REMOVED);
            assertThat(payloadStored(before.id())).isFalse();
        }
        assertThat(store.find(alicesElsewhere.id())).contains(alicesElsewhere);
        assertThat(store.find(bobsHere.id())).contains(bobsHere);
        assertThat(store.channelDeleted(GENERAL)).isFalse();
    }

    @Test
    void removeMember_sendingMessage_isCountedInFlightAndLeftAlone() {
        ScheduledMessage sending = sending(created(ALICE, GENERAL, Duration.ofSeconds(-30)));

        MemberRemoved removed = administration.removeMember(GENERAL, ALICE);

        assertThat(removed).isEqualTo(new MemberRemoved(0, 1));
        assertThat(store.find(sending.id())).contains(sending);
    }

    // ------------------------------------------------------------------------------------------------------
    // purges

    @Test
    void purgeOwner_deletesEveryMessageOfThatOwnerInAnyStateAndFreesItsKeys() {
        ScheduledMessage pending = created(ALICE, GENERAL, Duration.ofHours(1));
        ScheduledMessage published = published(created(ALICE, RANDOM, Duration.ofSeconds(-30)));
        ScheduledMessage bobs = created(BOB, GENERAL, Duration.ofHours(1));

        int purged = administration.purgeOwner(ALICE);
        CreateResult again = store.create(pending, keyOf(pending), NO_LIMITS);

        assertThat(purged).isEqualTo(2);
        assertThat(store.find(published.id())).isEmpty();
        assertThat(store.find(bobs.id())).contains(bobs);
        assertThat(again).isEqualTo(new CreateResult.Created(pending));
        assertThat(administration.purgeOwner(ALICE)).isEqualTo(1);
        assertThat(administration.purgeOwner(ALICE)).isZero();
    }

    @Test
    void purgeAll_deletesEveryMessageButKeepsTombstones() {
        created(ALICE, GENERAL, Duration.ofHours(1));
        ScheduledMessage bobs = claimed(created(BOB, RANDOM, Duration.ofSeconds(-30)));
        administration.deleteChannel(new Channel("gone"));

        int purged = administration.purgeAll();

        assertThat(purged).isEqualTo(2);
        assertThat(store.find(bobs.id())).isEmpty();
        assertThat(store.channelDeleted(new Channel("gone"))).isTrue();
        assertThat(administration.reservations().overdue()).isZero();
    }

    // ------------------------------------------------------------------------------------------------------
    // retention

    @Test
    void pruneTerminal_deletesOnlyTerminalMessagesOlderThanTheRetentionInBatches() {
        ScheduledMessage oldPublished = published(created(ALICE, GENERAL, Duration.ofSeconds(-30)));
        ScheduledMessage oldCancelled = cancelled(created(ALICE, GENERAL, Duration.ofHours(1)));
        ScheduledMessage oldFailed = failed(created(BOB, GENERAL, Duration.ofSeconds(-30)));
        ScheduledMessage oldPending = created(BOB, RANDOM, Duration.ofDays(30));
        letTimePass(Duration.ofDays(8));
        ScheduledMessage recentCancelled = cancelled(created(ALICE, RANDOM, Duration.ofHours(1)));

        int firstBatch = administration.pruneTerminal(Duration.ofDays(7), 2);
        int secondBatch = administration.pruneTerminal(Duration.ofDays(7), 2);
        int thirdBatch = administration.pruneTerminal(Duration.ofDays(7), 2);

        assertThat(List.of(firstBatch, secondBatch, thirdBatch)).containsExactly(2, 1, 0);
        for (ScheduledMessage gone : List.of(oldPublished, oldCancelled, oldFailed)) {
            assertThat(store.find(gone.id())).isEmpty();
        }
        assertThat(store.find(oldPending.id())).isPresent();
        assertThat(store.find(recentCancelled.id())).isPresent();
    }

    @Test
    void pruneTerminal_zeroRetention_deletesEveryTerminalMessage() {
        ScheduledMessage cancelled = cancelled(created(ALICE, GENERAL, Duration.ofHours(1)));
        ScheduledMessage pending = created(ALICE, GENERAL, Duration.ofHours(2));
        letTimePass(Duration.ofSeconds(1));

        int pruned = administration.pruneTerminal(Duration.ZERO, 100);

        assertThat(pruned).isEqualTo(1);
        assertThat(store.find(cancelled.id())).isEmpty();
        assertThat(store.find(pending.id())).isPresent();
    }

    // ------------------------------------------------------------------------------------------------------
    // reservations

    @Test
    void reservations_nothingStored_holdsNothing() {
        Reservations reservations = administration.reservations();

        assertThat(reservations.heldBefore()).isEmpty();
        assertThat(reservations.overdue()).isZero();
        assertThat(reservations.nextDue()).isEmpty();
    }

    @Test
    void reservations_onlyFutureMessages_holdNothingAndNameTheNextDueTime() {
        ScheduledMessage later = created(ALICE, GENERAL, Duration.ofHours(2));
        ScheduledMessage sooner = created(BOB, GENERAL, Duration.ofHours(1));

        Reservations reservations = administration.reservations();

        assertThat(reservations.heldBefore()).isEmpty();
        assertThat(reservations.overdue()).isZero();
        assertThat(reservations.nextDue()).contains(sooner.dueAt());
        assertThat(later.dueAt()).isAfter(sooner.dueAt());
    }

    @Test
    void reservations_overdueMessagesInAnyNonTerminalState_holdBeforeTheOldestDueTime() {
        published(created(BOB, RANDOM, Duration.ofSeconds(-400)));
        ScheduledMessage claimed = claimed(created(BOB, GENERAL, Duration.ofSeconds(-200)));
        ScheduledMessage retrying = retrying(created(ALICE, RANDOM, Duration.ofSeconds(-100)));
        ScheduledMessage oldest = created(ALICE, GENERAL, Duration.ofSeconds(-300));
        ScheduledMessage future = created(ALICE, GENERAL, Duration.ofHours(1));

        Reservations reservations = administration.reservations();

        assertThat(reservations.heldBefore()).contains(oldest.dueAt());
        assertThat(reservations.overdue()).isEqualTo(3);
        assertThat(reservations.nextDue()).contains(future.dueAt());
        assertThat(List.of(claimed.state().wireName(), retrying.state().wireName()))
                .containsExactly("sending", "scheduled");
    }

    @Test
    void reservations_sentNowWithAnEarlierSignedTime_holdFromTheEventsCreatedAt() {
        NostrEvent event = TestEvents.at(inSeconds(-120)).by(ALICE).channel("general").build();
        Instant now = now();
        ScheduledMessage sentNow = new ScheduledMessage(new ScheduleId(UUID.randomUUID()), ALICE, GENERAL,
                Revision.FIRST, event.id(), now.minusSeconds(5), Optional.of(event), ScheduleState.Scheduled.NOW, 0,
                now, now);
        assertThat(store.create(sentNow, keyOf(sentNow), NO_LIMITS)).isEqualTo(new CreateResult.Created(sentNow));

        Reservations reservations = administration.reservations();

        assertThat(reservations.heldBefore()).contains(Instant.ofEpochSecond(event.createdAt()));
        assertThat(reservations.overdue()).isEqualTo(1);
    }

    @Test
    void reservations_afterTheOverdueMessageEnds_holdNothingAgain() {
        ScheduledMessage overdue = created(ALICE, GENERAL, Duration.ofSeconds(-60));
        Reservations whileOverdue = administration.reservations();

        published(overdue);
        Reservations afterwards = administration.reservations();

        assertThat(whileOverdue.heldBefore()).contains(overdue.dueAt());
        assertThat(afterwards.heldBefore()).isEmpty();
        assertThat(afterwards.overdue()).isZero();
    }

    // ------------------------------------------------------------------------------------------------------
    // helpers: messages put in place through the storage port and domain transitions

    protected Instant now() {
        return delivery.now().truncatedTo(ChronoUnit.MICROS);
    }

    protected long inSeconds(long seconds) {
        return delivery.now().getEpochSecond() + seconds;
    }

    /** A revision-1 message by {@code owner} in {@code channel}, due {@code fromNow} from the store's now. */
    protected ScheduledMessage message(PublicKey owner, Channel channel, Duration fromNow) {
        NostrEvent event = TestEvents.at(inSeconds(fromNow.toSeconds())).by(owner).channel(channel.value()).build();
        Instant now = now();
        return new ScheduledMessage(new ScheduleId(UUID.randomUUID()), owner, channel, Revision.FIRST, event.id(),
                Instant.ofEpochSecond(event.createdAt()), Optional.of(event), ScheduleState.Scheduled.NOW, 0, now,
                now);
    }

    protected ScheduledMessage created(PublicKey owner, Channel channel, Duration fromNow) {
        ScheduledMessage message = message(owner, channel, fromNow);
        assertThat(store.create(message, keyOf(message), NO_LIMITS)).isEqualTo(new CreateResult.Created(message));
        return message;
    }

    /**
     * Claims {@code message} (straight into {@code sending}), which must be due; no other message may be due and
     * unclaimed.
     */
    protected ScheduledMessage claimed(ScheduledMessage message) {
        List<DeliveryStore.ClaimedMessage> claimed = delivery.claim(10, LEASE).messages();
        assertThat(claimed).extracting(m -> m.claim().id()).containsExactly(message.id());
        return store.find(message.id()).orElseThrow();
    }

    protected ScheduledMessage sending(ScheduledMessage due) {
        return claimed(due);
    }

    protected ScheduledMessage published(ScheduledMessage due) {
        ScheduledMessage sending = sending(due);
        assertThat(finish(new DeliveryStore.Finish.Publish(claimOf(sending), sending.revision()))).isTrue();
        return store.find(due.id()).orElseThrow();
    }

    protected ScheduledMessage failed(ScheduledMessage due) {
        ScheduledMessage sending = sending(due);
        assertThat(finish(new DeliveryStore.Finish.Fail(claimOf(sending), sending.revision(),
                FailureReason.RELAY_REJECTED, ""))).isTrue();
        return store.find(due.id()).orElseThrow();
    }

    protected ScheduledMessage retrying(ScheduledMessage due) {
        ScheduledMessage sending = sending(due);
        assertThat(finish(new DeliveryStore.Finish.Retry(claimOf(sending), sending.revision(), Duration.ofSeconds(60),
                Duration.ofHours(1), ""))).isTrue();
        return store.find(due.id()).orElseThrow();
    }

    private boolean finish(DeliveryStore.Finish finish) {
        return delivery.finish(List.of(finish)).get(0).recorded();
    }

    private static DeliveryStore.Claim claimOf(ScheduledMessage sending) {
        return new DeliveryStore.Claim(sending.id(), sending.token().orElseThrow());
    }

    protected ScheduledMessage cancelled(ScheduledMessage pending) {
        OwnerOutcome outcome = pending.cancel(now());
        assertThat(outcome).isInstanceOf(OwnerOutcome.Changed.class);
        return write(pending, ((OwnerOutcome.Changed) outcome).message());
    }

    protected ScheduledMessage revised(ScheduledMessage current, NostrEvent event) {
        ScheduledMessage next = new ScheduledMessage(current.id(), current.owner(), current.channel(),
                current.revision().next(), event.id(), Instant.ofEpochSecond(event.createdAt()), Optional.of(event),
                ScheduleState.Scheduled.NOW, current.attempts(), current.createdAt(), now());
        return write(current, next);
    }

    private ScheduledMessage write(ScheduledMessage expected, ScheduledMessage next) {
        assertThat(store.replace(expected, next)).isTrue();
        return next;
    }

    protected static IdempotencyKey keyOf(ScheduledMessage message) {
        return new IdempotencyKey(message.owner(), message.eventId().hex());
    }
}

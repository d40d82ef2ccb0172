package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.ScheduleStore.Claim;
import buzz.scheduled.application.port.out.ScheduleStore.ReviseResult;
import buzz.scheduled.application.port.out.ScheduleStore.SendingStarted;
import buzz.scheduled.application.port.out.ScheduleStore.CreateLimits;
import buzz.scheduled.application.port.out.ScheduleStore.CreateResult;
import buzz.scheduled.application.port.out.ScheduleStore.Cursor;
import buzz.scheduled.application.port.out.ScheduleStore.IdempotencyKey;
import buzz.scheduled.application.port.out.ScheduleStore.ListQuery;
import buzz.scheduled.application.port.out.ScheduleStore.Page;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.DeliveryOutcome;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ScheduleStore} must have, run against the in-memory fake (application tests) and
 * PostgreSQL (adapters-postgres). Times are taken from the store's own clock, so the same cases hold for a
 * settable clock and for the database's {@code now()}.
 */
public abstract class ScheduleStoreContract {

    /** Generous limits for cases that are not about limits. */
    protected static final CreateLimits NO_LIMITS = new CreateLimits(10_000, 10_000, Duration.ofMinutes(5));
    protected static final Duration LEASE = Duration.ofMinutes(1);
    protected static final PublicKey ALICE = TestEvents.ALICE;
    protected static final PublicKey BOB = TestEvents.BOB;
    protected static final Channel GENERAL = new Channel("general");

    protected ScheduleStore store;

    /** A store with no messages, keys or tombstones (fencing tokens may continue from earlier tests). */
    protected abstract ScheduleStore emptyStore();

    /** Records that {@code channel} was deleted (the port has no write for tombstones yet). */
    protected abstract void deleteChannel(Channel channel);

    /** Makes {@code duration} pass on the store's clock, as far as every stored time is concerned. */
    protected abstract void letTimePass(Duration duration);

    @BeforeEach
    void openStore() {
        store = emptyStore();
    }

    // ------------------------------------------------------------------------------------------------------
    // create / find

    @Test
    void create_newMessage_isFoundExactlyAsStored() {
        NostrEvent event = TestEvents.at(inSeconds(3600)).channel("general")
                .tag("p", "c".repeat(64)).tag("e", "d".repeat(64), "", "reply")
                .content("héllo \"wörld\"\n\t\\ \u2028 \u0001 😀 </script>").build();
        ScheduledMessage message = message(ScheduleId.parse(UUID.randomUUID().toString()), event);

        CreateResult result = store.create(message, keyOf(message), NO_LIMITS);

        assertThat(result).isEqualTo(new CreateResult.Created(message));
        assertThat(store.find(message.id())).contains(message);
    }

    @Test
    void find_unknownId_isEmpty() {
        assertThat(store.find(new ScheduleId(UUID.randomUUID()))).isEmpty();
    }

    @Test
    void create_sameKeyAndSameEvent_replaysTheFirstMessageWithoutASecondRow() {
        ScheduledMessage first = dueIn(Duration.ofHours(1));
        store.create(first, keyOf(first), NO_LIMITS);
        ScheduledMessage retry = withId(first, new ScheduleId(UUID.randomUUID()));

        CreateResult result = store.create(retry, keyOf(first), NO_LIMITS);

        assertThat(result).isEqualTo(new CreateResult.Replayed(first));
        assertThat(store.find(retry.id())).isEmpty();
    }

    @Test
    void create_sameKeyAndDifferentEvent_reportsConflictNamingTheFirstEvent() {
        ScheduledMessage first = dueIn(Duration.ofHours(1));
        IdempotencyKey key = new IdempotencyKey(ALICE, "client-key-1");
        store.create(first, key, NO_LIMITS);
        ScheduledMessage other = dueIn(Duration.ofHours(2));

        CreateResult result = store.create(other, key, NO_LIMITS);

        assertThat(result).isEqualTo(new CreateResult.IdempotencyConflict(first.id(), first.eventId()));
        assertThat(store.find(other.id())).isEmpty();
    }

    @Test
    void create_sameKeyForAnotherOwner_isIndependent() {
        ScheduledMessage alices = dueIn(Duration.ofHours(1));
        ScheduledMessage bobs = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(7200)).by(BOB).build());
        store.create(alices, new IdempotencyKey(ALICE, "same"), NO_LIMITS);

        CreateResult result = store.create(bobs, new IdempotencyKey(BOB, "same"), NO_LIMITS);

        assertThat(result).isEqualTo(new CreateResult.Created(bobs));
    }

    @Test
    void create_deletedChannel_reportsChannelDeletedAndStoresNothing() {
        deleteChannel(new Channel("gone"));
        ScheduledMessage message = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(600)).channel("gone").build());

        CreateResult result = store.create(message, keyOf(message), NO_LIMITS);

        assertThat(result).isEqualTo(new CreateResult.ChannelDeleted());
        assertThat(store.find(message.id())).isEmpty();
        assertThat(store.channelDeleted(new Channel("gone"))).isTrue();
        assertThat(store.channelDeleted(GENERAL)).isFalse();
    }

    @Test
    void create_ownerAtPendingLimit_refusesUntilOneEnds() {
        CreateLimits twoPending = new CreateLimits(2, 100, Duration.ofMinutes(5));
        ScheduledMessage first = dueIn(Duration.ofHours(1));
        store.create(first, keyOf(first), twoPending);
        store.create(dueIn(Duration.ofHours(2)), new IdempotencyKey(ALICE, "k2"), twoPending);
        store.create(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(inSeconds(60)).by(BOB).build()),
                new IdempotencyKey(BOB, "k"), twoPending);
        ScheduledMessage third = dueIn(Duration.ofHours(3));

        CreateResult refused = store.create(third, keyOf(third), twoPending);
        ScheduledMessage cancelled = changed(first.cancel(store.now()));
        assertThat(store.replace(first, cancelled)).isTrue();
        CreateResult afterCancel = store.create(third, keyOf(third), twoPending);

        assertThat(refused).isEqualTo(new CreateResult.TooManyPending(2));
        assertThat(afterCancel).isEqualTo(new CreateResult.Created(third));
    }

    @Test
    void create_channelWindowFull_refusesNamingTheWindowButAcceptsTheNextWindow() {
        CreateLimits twoPerWindow = new CreateLimits(100, 2, Duration.ofMinutes(5));
        long windowStart = Math.floorDiv(inSeconds(3600), 300) * 300;
        for (int i = 0; i < 2; i++) {
            ScheduledMessage m = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + i * 100).build());
            assertThat(store.create(m, keyOf(m), twoPerWindow)).isInstanceOf(CreateResult.Created.class);
        }
        ScheduledMessage sameWindow = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + 299).build());
        ScheduledMessage nextWindow = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + 300).build());
        ScheduledMessage otherChannel = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(windowStart + 1).channel("random").build());

        assertThat(store.create(sameWindow, keyOf(sameWindow), twoPerWindow))
                .isEqualTo(new CreateResult.ChannelWindowFull(2, Instant.ofEpochSecond(windowStart)));
        assertThat(store.create(nextWindow, keyOf(nextWindow), twoPerWindow)).isInstanceOf(CreateResult.Created.class);
        assertThat(store.create(otherChannel, keyOf(otherChannel), twoPerWindow))
                .isInstanceOf(CreateResult.Created.class);
    }

    @Test
    void create_concurrentIdenticalRequests_storeExactlyOneMessage() throws Exception {
        NostrEvent event = TestEvents.at(inSeconds(3600)).build();
        List<ScheduledMessage> attempts = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            attempts.add(message(new ScheduleId(UUID.randomUUID()), event));
        }
        IdempotencyKey key = new IdempotencyKey(ALICE, "same-request");

        List<CreateResult> results = concurrently(attempts.stream()
                .<Callable<CreateResult>>map(m -> () -> store.create(m, key, NO_LIMITS)).toList());

        assertThat(results).filteredOn(r -> r instanceof CreateResult.Created).hasSize(1);
        ScheduledMessage stored = ((CreateResult.Created) results.stream()
                .filter(r -> r instanceof CreateResult.Created).findFirst().orElseThrow()).message();
        assertThat(results).filteredOn(r -> r instanceof CreateResult.Replayed)
                .hasSize(15)
                .allSatisfy(r -> assertThat(((CreateResult.Replayed) r).message()).isEqualTo(stored));
        assertThat(attempts).filteredOn(m -> store.find(m.id()).isPresent()).hasSize(1);
    }

    @Test
    void create_concurrentRequestsBeyondThePendingLimit_admitExactlyTheLimit() throws Exception {
        CreateLimits fivePending = new CreateLimits(5, 100, Duration.ofMinutes(5));
        List<Callable<CreateResult>> creates = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ScheduledMessage m = dueIn(Duration.ofHours(1).plusSeconds(i * 400L));
            creates.add(() -> store.create(m, keyOf(m), fivePending));
        }

        List<CreateResult> results = concurrently(creates);

        assertThat(results).filteredOn(r -> r instanceof CreateResult.Created).hasSize(5);
        assertThat(results).filteredOn(r -> r.equals(new CreateResult.TooManyPending(5))).hasSize(7);
    }

    // ------------------------------------------------------------------------------------------------------
    // list

    @Test
    void list_sameDueTimes_pagesInDueTimeThenIdOrderWithoutGapsOrRepeats() {
        long due = inSeconds(3600);
        // Ids whose order differs between signed and unsigned comparison of their bits.
        List<String> ids = List.of("ffffffff-0000-4000-8000-000000000000", "80000000-0000-4000-8000-000000000000",
                "7fffffff-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000001",
                "00000000-0000-4000-8000-000000000000");
        List<ScheduledMessage> stored = new ArrayList<>();
        for (String id : ids) {
            stored.add(createdMessage(message(ScheduleId.parse(id), TestEvents.at(due).build())));
        }
        stored.add(createdMessage(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(due - 1).build())));
        stored.add(createdMessage(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(due + 1).build())));

        List<ScheduledMessage> seen = new ArrayList<>();
        Optional<Cursor> cursor = Optional.empty();
        int pages = 0;
        do {
            Page page = store.list(new ListQuery(ALICE, Set.of("scheduled"), Optional.empty(), 2, cursor));
            seen.addAll(page.items());
            cursor = page.next();
            pages++;
        } while (cursor.isPresent() && pages < 10);

        List<ScheduledMessage> expected = stored.stream()
                .sorted(Comparator.comparing(ScheduledMessage::dueAt).thenComparing(m -> m.id().toString()))
                .toList();
        assertThat(seen).containsExactlyElementsOf(expected);
        assertThat(pages).isEqualTo(4);
    }

    @Test
    void list_stateAndChannelFilters_returnOnlyTheOwnersMatchingMessages() {
        ScheduledMessage general = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage random = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(7200)).channel("random").build()));
        ScheduledMessage cancelled = createdMessage(dueIn(Duration.ofHours(3)));
        assertThat(store.replace(cancelled, changed(cancelled.cancel(store.now())))).isTrue();
        createdMessage(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(inSeconds(600)).by(BOB).build()));

        Page pending = store.list(new ListQuery(ALICE, Set.of("scheduled", "claimed", "sending"), Optional.empty(),
                50, Optional.empty()));
        Page inRandom = store.list(new ListQuery(ALICE, Set.of("scheduled"), Optional.of(new Channel("random")),
                50, Optional.empty()));
        Page ended = store.list(new ListQuery(ALICE, Set.of("cancelled"), Optional.empty(), 50, Optional.empty()));

        assertThat(pending.items()).containsExactly(general, random);
        assertThat(pending.next()).isEmpty();
        assertThat(inRandom.items()).containsExactly(random);
        assertThat(ended.items()).extracting(ScheduledMessage::id).containsExactly(cancelled.id());
    }

    // ------------------------------------------------------------------------------------------------------
    // replace (compare-and-set)

    @Test
    void replace_cancelWhileStillAsRead_writesItAndPurgesTheEvent() {
        ScheduledMessage stored = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage cancelled = changed(stored.cancel(store.now()));

        boolean written = store.replace(stored, cancelled);

        assertThat(written).isTrue();
        ScheduledMessage found = store.find(stored.id()).orElseThrow();
        assertThat(found).isEqualTo(cancelled);
        assertThat(found.event()).isEmpty();
        assertThat(found.eventId()).isEqualTo(stored.eventId());
    }

    @Test
    void replace_newRevision_isStoredAndMakesTheOldReadStale() {
        ScheduledMessage stored = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage revised = revised(stored, TestEvents.at(inSeconds(7200)).build());

        assertThat(store.replace(stored, revised)).isTrue();
        boolean staleWrite = store.replace(stored, changed(stored.cancel(store.now())));

        assertThat(staleWrite).isFalse();
        ScheduledMessage found = store.find(stored.id()).orElseThrow();
        assertThat(found).isEqualTo(revised);
        assertThat(found.revision()).isEqualTo(new Revision(2));
    }

    @Test
    void replace_differentIds_isRefused() {
        ScheduledMessage a = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage b = dueIn(Duration.ofHours(2));

        assertThatThrownBy(() -> store.replace(a, b)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void replace_staleTokenAfterReapAndReclaim_changesNothing() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage firstClaim = single(store.claimDue(10, LEASE));
        letTimePass(LEASE.plusSeconds(5));
        assertThat(store.reapExpiredLeases(Duration.ZERO)).isEqualTo(1);
        ScheduledMessage secondClaim = single(store.claimDue(10, LEASE));
        FencingToken staleToken = firstClaim.token().orElseThrow();

        // The paused first claimant computed its pre-send step back when its claim was still live.
        ScheduledMessage staleSending = moved(firstClaim.startSending(staleToken, firstClaim.revision(),
                Duration.ZERO, Duration.ofDays(1), firstClaim.updatedAt()));
        boolean written = store.replace(firstClaim, staleSending);

        assertThat(written).isFalse();
        ScheduledMessage found = store.find(firstClaim.id()).orElseThrow();
        assertThat(found.state()).isInstanceOf(ScheduleState.Claimed.class);
        assertThat(found.token()).isEqualTo(secondClaim.token());
        assertThat(secondClaim.token().orElseThrow().value()).isGreaterThan(staleToken.value());
    }

    @Test
    void replace_concurrentWritersFromTheSameRead_exactlyOneWins() throws Exception {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage claimed = single(store.claimDue(1, LEASE));
        FencingToken token = claimed.token().orElseThrow();
        Instant now = store.now();
        List<ScheduledMessage> competing = List.of(
                moved(claimed.startSending(token, claimed.revision(), Duration.ZERO, Duration.ofDays(1), now)),
                moved(claimed.release(token, now)),
                moved(claimed.fail(token, FailureReason.ACCESS_DENIED, now)),
                changed(claimed.cancel(now)));

        List<Boolean> results = concurrently(competing.stream()
                .<Callable<Boolean>>map(next -> () -> store.replace(claimed, next)).toList());

        assertThat(results).containsOnlyOnce(true);
        ScheduledMessage winner = competing.get(results.indexOf(true));
        assertThat(store.find(claimed.id())).contains(winner);
    }

    // ------------------------------------------------------------------------------------------------------
    // claim

    @Test
    void claimDue_mixOfDueAndFutureMessages_claimsOnlyDueOnesOldestFirstWithTokenLeaseAndAttempt() {
        ScheduledMessage older = createdMessage(dueIn(Duration.ofSeconds(-120)));
        ScheduledMessage newer = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage future = createdMessage(dueIn(Duration.ofHours(1)));
        Instant before = store.now();

        List<ScheduledMessage> claimed = store.claimDue(10, LEASE);

        assertThat(claimed).extracting(ScheduledMessage::id).containsExactly(older.id(), newer.id());
        assertThat(claimed).allSatisfy(m -> {
            assertThat(m.state()).isInstanceOf(ScheduleState.Claimed.class);
            ScheduleState.Claimed state = (ScheduleState.Claimed) m.state();
            assertThat(state.leaseUntil()).isBetween(before.plus(LEASE), store.now().plus(LEASE));
            assertThat(m.attempts()).isEqualTo(1);
            assertThat(m.event()).isPresent();
            assertThat(store.find(m.id())).contains(m);
        });
        assertThat(claimed.get(0).token()).isNotEqualTo(claimed.get(1).token());
        assertThat(store.find(future.id()).orElseThrow().state()).isEqualTo(ScheduleState.Scheduled.NOW);
    }

    @Test
    void claimDue_moreDueThanTheLimit_claimsTheOldestUpToTheLimit() {
        List<ScheduledMessage> due = new ArrayList<>();
        for (int i = 5; i >= 1; i--) {
            due.add(createdMessage(dueIn(Duration.ofSeconds(-60L * i))));
        }

        List<ScheduledMessage> first = store.claimDue(3, LEASE);
        List<ScheduledMessage> rest = store.claimDue(3, LEASE);

        assertThat(first).extracting(ScheduledMessage::id)
                .containsExactly(due.get(0).id(), due.get(1).id(), due.get(2).id());
        assertThat(rest).extracting(ScheduledMessage::id).containsExactly(due.get(3).id(), due.get(4).id());
        assertThat(store.claimDue(3, LEASE)).isEmpty();
    }

    @Test
    void claimDue_retryTimeStillAhead_waitsForTheRetryTime() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage claimed = single(store.claimDue(1, LEASE));
        FencingToken token = claimed.token().orElseThrow();
        Instant now = store.now();
        ScheduledMessage sending = moved(claimed.startSending(token, claimed.revision(), Duration.ZERO,
                Duration.ofDays(1), now));
        assertThat(store.replace(claimed, sending)).isTrue();
        ScheduledMessage retrying = moved(sending.retryLater(token, now.plusSeconds(30), Duration.ofDays(1), now));
        assertThat(store.replace(sending, retrying)).isTrue();

        List<ScheduledMessage> tooEarly = store.claimDue(1, LEASE);
        letTimePass(Duration.ofSeconds(31));
        List<ScheduledMessage> afterRetryTime = store.claimDue(1, LEASE);

        assertThat(tooEarly).isEmpty();
        assertThat(afterRetryTime).extracting(ScheduledMessage::id).containsExactly(claimed.id());
        assertThat(afterRetryTime.get(0).attempts()).isEqualTo(2);
        assertThat(afterRetryTime.get(0).token().orElseThrow().value()).isGreaterThan(token.value());
    }

    @Test
    void claimDue_concurrentClaimers_neverGetTheSameMessage() throws Exception {
        List<ScheduleId> due = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            due.add(createdMessage(dueIn(Duration.ofSeconds(-1 - i))).id());
        }
        ConcurrentLinkedQueue<ScheduleId> claimedIds = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
        List<Callable<Integer>> claimers = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            claimers.add(() -> {
                int batches = 0;
                List<ScheduledMessage> batch;
                while (!(batch = store.claimDue(7, LEASE)).isEmpty()) {
                    batch.forEach(m -> {
                        claimedIds.add(m.id());
                        tokens.add(m.token().orElseThrow().value());
                    });
                    batches++;
                }
                return batches;
            });
        }

        concurrently(claimers);

        assertThat(claimedIds).hasSize(120).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(due);
        assertThat(tokens).doesNotHaveDuplicates();
    }

    // ------------------------------------------------------------------------------------------------------
    // renew / reap / next due

    @Test
    void renewLeases_heldAndStaleClaims_extendsOnlyTheHeldOne() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        createdMessage(dueIn(Duration.ofSeconds(-30)));
        List<ScheduledMessage> claimed = store.claimDue(2, LEASE);
        ScheduledMessage held = claimed.get(0);
        ScheduledMessage other = claimed.get(1);
        FencingToken wrongToken = new FencingToken(other.token().orElseThrow().value() + 1000);

        Set<ScheduleId> renewed = store.renewLeases(List.of(new Claim(held.id(), held.token().orElseThrow()),
                new Claim(other.id(), wrongToken)), Duration.ofHours(1));

        assertThat(renewed).containsExactly(held.id());
        assertThat(leaseUntil(store.find(held.id()).orElseThrow())).isAfter(store.now().plus(Duration.ofMinutes(59)));
        assertThat(leaseUntil(store.find(other.id()).orElseThrow())).isEqualTo(leaseUntil(other));
        assertThat(store.renewLeases(List.of(), LEASE)).isEmpty();
    }

    @Test
    void replace_sameClaimAfterARenewal_keepsTheRenewedLease() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage claimed = store.claimDue(1, LEASE).get(0);
        FencingToken token = claimed.token().orElseThrow();
        store.renewLeases(List.of(new Claim(claimed.id(), token)), Duration.ofHours(1));
        Instant renewedUntil = leaseUntil(store.find(claimed.id()).orElseThrow());
        ScheduledMessage sending = ((buzz.scheduled.domain.schedule.DeliveryOutcome.Moved) claimed.startSending(
                token, claimed.revision(), Duration.ofSeconds(1), Duration.ofMinutes(15), store.now())).message();

        boolean written = store.replace(claimed, sending);

        ScheduledMessage stored = store.find(claimed.id()).orElseThrow();
        assertThat(written).isTrue();
        assertThat(stored.state().wireName()).isEqualTo("sending");
        assertThat(leaseUntil(stored)).isEqualTo(renewedUntil);
    }

    @Test
    void reapExpiredLeases_expiredAndLiveClaims_returnsOnlyExpiredOnesToScheduledOnce() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage shortLease = single(store.claimDue(1, Duration.ofSeconds(10)));
        createdMessage(dueIn(Duration.ofSeconds(-30)));
        ScheduledMessage longLease = single(store.claimDue(1, Duration.ofHours(1)));
        letTimePass(Duration.ofSeconds(20));

        int reaped = store.reapExpiredLeases(Duration.ofSeconds(5));
        int again = store.reapExpiredLeases(Duration.ofSeconds(5));

        assertThat(reaped).isEqualTo(1);
        assertThat(again).isZero();
        ScheduledMessage returned = store.find(shortLease.id()).orElseThrow();
        assertThat(returned.state()).isEqualTo(ScheduleState.Scheduled.NOW);
        assertThat(returned.token()).isEmpty();
        assertThat(returned.attempts()).isEqualTo(1);
        assertThat(store.find(longLease.id()).orElseThrow().state()).isInstanceOf(ScheduleState.Claimed.class);
    }

    @Test
    void reapExpiredLeases_withinGrace_leavesTheClaim() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage claimed = single(store.claimDue(1, Duration.ofSeconds(10)));
        letTimePass(Duration.ofSeconds(15));

        int reaped = store.reapExpiredLeases(Duration.ofSeconds(30));

        assertThat(reaped).isZero();
        assertThat(store.find(claimed.id()).orElseThrow().token()).isEqualTo(claimed.token());
    }

    @Test
    void reapExpiredLeases_racingTheFinishingWrite_exactlyOneOfThemWins() throws Exception {
        for (int round = 0; round < 10; round++) {
            createdMessage(dueIn(Duration.ofSeconds(-60)));
            ScheduledMessage claimed = single(store.claimDue(1, LEASE));
            FencingToken token = claimed.token().orElseThrow();
            ScheduledMessage sending = moved(claimed.startSending(token, claimed.revision(), Duration.ZERO,
                    Duration.ofDays(1), store.now()));
            assertThat(store.replace(claimed, sending)).isTrue();
            letTimePass(LEASE.plusSeconds(1));
            ScheduledMessage published = moved(sending.publish(token, store.now()));

            List<Object> results = concurrently(List.<Callable<Object>>of(
                    () -> store.replace(sending, published),
                    () -> store.reapExpiredLeases(Duration.ZERO)));

            boolean finished = (Boolean) results.get(0);
            int reaped = (Integer) results.get(1);
            assertThat(finished).as("round %d: exactly one of publish (%s) and reap (%s)", round, finished, reaped)
                    .isNotEqualTo(reaped == 1);
            ScheduleState end = store.find(claimed.id()).orElseThrow().state();
            assertThat(end).isInstanceOf(finished ? ScheduleState.Published.class : ScheduleState.Scheduled.class);
            store.claimDue(1, LEASE).forEach(m -> assertThat(store.replace(m, changed(m.cancel(store.now())))).isTrue());
        }
    }

    @Test
    void nextDueAt_scheduledClaimedAndRetryingMessages_isTheEarliestClaimableTime() {
        assertThat(store.nextDueAt()).isEmpty();
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage claimed = single(store.claimDue(1, LEASE));
        ScheduledMessage later = createdMessage(dueIn(Duration.ofHours(2)));
        ScheduledMessage sooner = createdMessage(dueIn(Duration.ofHours(1)));

        Optional<Instant> withoutRetry = store.nextDueAt();
        FencingToken token = claimed.token().orElseThrow();
        Instant now = store.now();
        ScheduledMessage sending = moved(claimed.startSending(token, claimed.revision(), Duration.ZERO,
                Duration.ofDays(1), now));
        assertThat(store.replace(claimed, sending)).isTrue();
        Instant retryAt = now.plusSeconds(600).truncatedTo(ChronoUnit.MICROS);
        assertThat(store.replace(sending, moved(sending.retryLater(token, retryAt, Duration.ofDays(1), now)))).isTrue();

        assertThat(withoutRetry).contains(sooner.dueAt());
        assertThat(store.nextDueAt()).contains(retryAt);
        assertThat(later.dueAt()).isAfter(sooner.dueAt());
    }

    // ------------------------------------------------------------------------------------------------------
    // re-admitted revisions

    @Test
    void replaceRevision_withinLimits_storesTheRevisionAndItsHistory() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage next = revised(message, TestEvents.at(inSeconds(7200)).content("r2").build());

        assertThat(store.replaceRevision(message, next, NO_LIMITS)).isEqualTo(new ReviseResult.Replaced());
        assertThat(store.find(message.id())).contains(next);
        assertThat(store.replaceRevision(message, revised(message, TestEvents.at(inSeconds(7200)).build()),
                NO_LIMITS)).as("stale read").isEqualTo(new ReviseResult.Lost());
    }

    @Test
    void replaceRevision_intoADeletedChannel_writesNothing() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofHours(1)));
        deleteChannel(new Channel("gone"));
        ScheduledMessage next = revised(message, TestEvents.at(inSeconds(3600)).channel("gone").build());
        ScheduledMessage moved = new ScheduledMessage(next.id(), next.owner(), new Channel("gone"), next.revision(),
                next.eventId(), next.dueAt(), next.event(), next.state(), next.attempts(), next.createdAt(),
                next.updatedAt());

        assertThat(store.replaceRevision(message, moved, NO_LIMITS)).isEqualTo(new ReviseResult.ChannelDeleted());
        assertThat(store.find(message.id())).contains(message);
    }

    @Test
    void replaceRevision_intoAFullWindow_writesNothingButItsOwnWindowDoesNotCountItself() {
        CreateLimits two = new CreateLimits(10_000, 2, Duration.ofMinutes(5));
        long due = (inSeconds(3600) / 300) * 300 + 10;
        ScheduledMessage first = createdMessage(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(due).build()));
        createdMessage(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(due).by(BOB).build()));
        ScheduledMessage later = createdMessage(dueIn(Duration.ofHours(3)));

        ScheduledMessage intoFull = revised(later, TestEvents.at(due + 5).build());
        assertThat(store.replaceRevision(later, intoFull, two)).isInstanceOfSatisfying(
                ReviseResult.ChannelWindowFull.class, full -> assertThat(full.limit()).isEqualTo(2));
        assertThat(store.find(later.id())).contains(later);

        ScheduledMessage withinOwn = revised(first, TestEvents.at(due + 20).build());
        assertThat(store.replaceRevision(first, withinOwn, two)).isEqualTo(new ReviseResult.Replaced());
    }

    // ------------------------------------------------------------------------------------------------------
    // fast pre-send step and publish

    @Test
    void startSending_heldClaimInTime_movesToSendingAndAnswersTheStoreClockAndLease() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage claimed = single(store.claimDue(1, LEASE));
        Claim claim = new Claim(claimed.id(), claimed.token().orElseThrow());

        Optional<SendingStarted> started = store.startSending(claim, claimed.revision(), Duration.ofSeconds(10),
                Duration.ofMinutes(15));

        assertThat(started).hasValueSatisfying(s -> {
            assertThat(s.leaseUntil()).isEqualTo(leaseUntil(claimed));
            assertThat(Duration.between(s.now(), s.leaseUntil())).isLessThanOrEqualTo(LEASE);
        });
        ScheduledMessage stored = store.find(claimed.id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(new ScheduleState.Sending(claim.token(), leaseUntil(claimed)));
        assertThat(stored.attempts()).isEqualTo(claimed.attempts());
        assertThat(stored.event()).isEqualTo(claimed.event());
    }

    @Test
    void startSending_anyConditionBroken_writesNothingAndAnswersEmpty() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage claimed = single(store.claimDue(1, LEASE));
        Claim claim = new Claim(claimed.id(), claimed.token().orElseThrow());
        Claim stale = new Claim(claimed.id(), new FencingToken(claim.token().value() + 1000));

        assertThat(store.startSending(stale, claimed.revision(), Duration.ZERO, Duration.ofMinutes(15)))
                .as("another token").isEmpty();
        assertThat(store.startSending(claim, claimed.revision().next(), Duration.ZERO, Duration.ofMinutes(15)))
                .as("another revision").isEmpty();
        assertThat(store.startSending(claim, claimed.revision(), LEASE.plusSeconds(1), Duration.ofMinutes(15)))
                .as("too little lease left").isEmpty();
        assertThat(store.startSending(claim, claimed.revision(), Duration.ZERO, Duration.ofSeconds(30)))
                .as("later than the lateness limit").isEmpty();
        deleteChannel(claimed.channel());
        assertThat(store.startSending(claim, claimed.revision(), Duration.ZERO, Duration.ofMinutes(15)))
                .as("channel deleted").isEmpty();

        assertThat(store.find(claimed.id())).contains(claimed);
    }

    @Test
    void markPublished_sendingUnderTheClaim_publishesOnceAndKeepsTheEvent() {
        createdMessage(dueIn(Duration.ofSeconds(-60)));
        ScheduledMessage claimed = single(store.claimDue(1, LEASE));
        Claim claim = new Claim(claimed.id(), claimed.token().orElseThrow());
        assertThat(store.markPublished(claim, claimed.revision())).as("still claimed, not sending").isFalse();
        store.startSending(claim, claimed.revision(), Duration.ZERO, Duration.ofMinutes(15)).orElseThrow();

        assertThat(store.markPublished(new Claim(claim.id(), new FencingToken(claim.token().value() + 1)),
                claimed.revision())).as("another token").isFalse();
        assertThat(store.markPublished(claim, claimed.revision())).isTrue();
        assertThat(store.markPublished(claim, claimed.revision())).as("only once").isFalse();

        ScheduledMessage stored = store.find(claimed.id()).orElseThrow();
        assertThat(stored.state()).isInstanceOf(ScheduleState.Published.class);
        assertThat(stored.publishedAt().orElseThrow()).isAfterOrEqualTo(claimed.updatedAt());
        assertThat(stored.event()).isEqualTo(claimed.event());
        assertThat(stored.token()).isEmpty();
    }

    @Test
    void startSendingAndMarkPublished_manyConcurrentSendersWithHeldAndStaleClaims_eachGetsItsOwnAnswer()
            throws Exception {
        for (int i = 0; i < 40; i++) {
            createdMessage(dueIn(Duration.ofSeconds(-60 - i)));
        }
        List<ScheduledMessage> claimed = store.claimDue(40, LEASE);
        assertThat(claimed).hasSize(40);
        List<Callable<Optional<SendingStarted>>> preSend = new ArrayList<>();
        List<Boolean> held = new ArrayList<>();
        for (ScheduledMessage message : claimed) {
            Claim claim = new Claim(message.id(), message.token().orElseThrow());
            Claim stale = new Claim(message.id(), new FencingToken(claim.token().value() + 100_000));
            preSend.add(() -> store.startSending(stale, message.revision(), Duration.ZERO, Duration.ofMinutes(15)));
            held.add(false);
            preSend.add(() -> store.startSending(claim, message.revision(), Duration.ZERO, Duration.ofMinutes(15)));
            held.add(true);
        }

        List<Optional<SendingStarted>> started = concurrently(preSend);

        for (int i = 0; i < started.size(); i++) {
            assertThat(started.get(i).isPresent()).as("pre-send step %d (held: %s)", i, held.get(i))
                    .isEqualTo(held.get(i));
        }
        List<Callable<Boolean>> publish = new ArrayList<>();
        for (ScheduledMessage message : claimed) {
            Claim claim = new Claim(message.id(), message.token().orElseThrow());
            Claim stale = new Claim(message.id(), new FencingToken(claim.token().value() + 100_000));
            publish.add(() -> store.markPublished(claim, message.revision()));
            publish.add(() -> store.markPublished(stale, message.revision()));
            publish.add(() -> store.markPublished(claim, message.revision()));
        }

        List<Boolean> published = concurrently(publish);

        for (int m = 0; m < claimed.size(); m++) {
            assertThat(published.get(3 * m + 1)).as("stale claim on message %d", m).isFalse();
            assertThat(List.of(published.get(3 * m), published.get(3 * m + 2))).as("held claim twice on message %d", m)
                    .containsExactlyInAnyOrder(true, false);
            assertThat(store.find(claimed.get(m).id()).orElseThrow().state())
                    .isInstanceOf(ScheduleState.Published.class);
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // helpers

    /** Unix seconds {@code seconds} from the store's now. */
    protected long inSeconds(long seconds) {
        return store.now().getEpochSecond() + seconds;
    }

    /** A new revision-1 message by Alice in {@code general}, due {@code fromNow} from the store's now. */
    protected ScheduledMessage dueIn(Duration fromNow) {
        return message(new ScheduleId(UUID.randomUUID()), TestEvents.at(inSeconds(fromNow.toSeconds())).build());
    }

    /** A new revision-1 message for {@code event}, due at its {@code created_at}. */
    protected ScheduledMessage message(ScheduleId id, NostrEvent event) {
        Instant now = store.now().truncatedTo(ChronoUnit.MICROS);
        return new ScheduledMessage(id, event.pubkey(), new Channel(event.firstTagValue("h").orElseThrow()),
                Revision.FIRST, event.id(), Instant.ofEpochSecond(event.createdAt()), Optional.of(event),
                ScheduleState.Scheduled.NOW, 0, now, now);
    }

    private ScheduledMessage createdMessage(ScheduledMessage message) {
        assertThat(store.create(message, keyOf(message), NO_LIMITS)).isEqualTo(new CreateResult.Created(message));
        return message;
    }

    private static IdempotencyKey keyOf(ScheduledMessage message) {
        return new IdempotencyKey(message.owner(), message.eventId().hex());
    }

    private static ScheduledMessage withId(ScheduledMessage m, ScheduleId id) {
        return new ScheduledMessage(id, m.owner(), m.channel(), m.revision(), m.eventId(), m.dueAt(), m.event(),
                m.state(), m.attempts(), m.createdAt(), m.updatedAt());
    }

    private ScheduledMessage revised(ScheduledMessage m, NostrEvent event) {
        Instant now = store.now().truncatedTo(ChronoUnit.MICROS);
        return new ScheduledMessage(m.id(), m.owner(), m.channel(), m.revision().next(), event.id(),
                Instant.ofEpochSecond(event.createdAt()), Optional.of(event), ScheduleState.Scheduled.NOW,
                m.attempts(), m.createdAt(), now);
    }

    private static ScheduledMessage changed(buzz.scheduled.domain.schedule.OwnerOutcome outcome) {
        assertThat(outcome).isInstanceOf(buzz.scheduled.domain.schedule.OwnerOutcome.Changed.class);
        return ((buzz.scheduled.domain.schedule.OwnerOutcome.Changed) outcome).message();
    }

    private static ScheduledMessage moved(DeliveryOutcome outcome) {
        assertThat(outcome).isInstanceOf(DeliveryOutcome.Moved.class);
        return ((DeliveryOutcome.Moved) outcome).message();
    }

    private static ScheduledMessage single(List<ScheduledMessage> claimed) {
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    private static Instant leaseUntil(ScheduledMessage m) {
        return switch (m.state()) {
            case ScheduleState.Claimed c -> c.leaseUntil();
            case ScheduleState.Sending s -> s.leaseUntil();
            default -> throw new AssertionError("no lease in state " + m.state().wireName());
        };
    }

    /** Runs all tasks at once (released together by a latch) and returns their results in task order. */
    private static <T> List<T> concurrently(List<? extends Callable<? extends T>> tasks) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
        try {
            return runTogether(threads, tasks);
        } finally {
            threads.shutdownNow();
            assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).as("test threads stopped").isTrue();
        }
    }

    private static <T> List<T> runTogether(ExecutorService threads, List<? extends Callable<? extends T>> tasks)
            throws Exception {
        CountDownLatch ready = new CountDownLatch(tasks.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Future<? extends T>> futures = new ArrayList<>();
        for (Callable<? extends T> task : tasks) {
            futures.add(threads.submit(() -> {
                ready.countDown();
                go.await();
                return task.call();
            }));
        }
        assertThat(ready.await(10, TimeUnit.SECONDS)).as("all tasks started").isTrue();
        go.countDown();
        List<T> results = new ArrayList<>();
        for (Future<? extends T> future : futures) {
            results.add(future.get(30, TimeUnit.SECONDS));
        }
        return results;
    }
}

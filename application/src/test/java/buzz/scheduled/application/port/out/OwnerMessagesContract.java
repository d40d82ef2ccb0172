package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.CancelMatchingUseCase;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Cursor;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.MessageAdmission.CreateResult;
import buzz.scheduled.application.port.out.MessageAdmission.IdempotencyKey;
import buzz.scheduled.application.port.out.OwnerMessageChanges.ReviseResult;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The behaviour the owner side's storage ports ({@link OwnerMessageQueries}, {@link MessageAdmission},
 * {@link OwnerMessageChanges}) must have, run against the in-memory fake (application tests) and
 * PostgreSQL (adapters-postgres). Times are taken from the store's own clock, so the same cases hold for a
 * settable clock and for the database's {@code now()}.
 */
public abstract class OwnerMessagesContract<S extends OwnerMessageQueries & MessageAdmission & OwnerMessageChanges>
        extends StoreContractSupport<S> {

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
        ScheduledMessage cancelled = changed(first.cancel(now()));
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
                .isEqualTo(new CreateResult.ChannelWindowFull(2, Instant.ofEpochSecond(windowStart),
                        MessageAdmission.WindowScope.OWNER));
        assertThat(store.create(nextWindow, keyOf(nextWindow), twoPerWindow)).isInstanceOf(CreateResult.Created.class);
        assertThat(store.create(otherChannel, keyOf(otherChannel), twoPerWindow))
                .isInstanceOf(CreateResult.Created.class);
    }

    @Test
    void create_ownerFullInAChannelWindow_doesNotBlockAnotherOwnerThere() {
        CreateLimits perOwner = new CreateLimits(100, 3, 10, Duration.ofMinutes(5), 1);
        long windowStart = Math.floorDiv(inSeconds(3600), 300) * 300;
        for (int i = 0; i < 3; i++) {
            ScheduledMessage m = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + i).build());
            assertThat(store.create(m, keyOf(m), perOwner)).isInstanceOf(CreateResult.Created.class);
        }
        ScheduledMessage alicesFourth = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + 9).build());
        ScheduledMessage bobs = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(windowStart + 9).by(BOB).build());

        assertThat(store.create(alicesFourth, keyOf(alicesFourth), perOwner)).isEqualTo(new CreateResult
                .ChannelWindowFull(3, Instant.ofEpochSecond(windowStart), MessageAdmission.WindowScope.OWNER));
        assertThat(store.create(bobs, keyOf(bobs), perOwner)).isEqualTo(new CreateResult.Created(bobs));
    }

    @Test
    void create_channelWideBackstopFull_refusesEveryOwnerInThatWindow() {
        CreateLimits backstop = new CreateLimits(100, 2, 3, Duration.ofMinutes(5), 1);
        long windowStart = Math.floorDiv(inSeconds(3600), 300) * 300;
        PublicKey carol = new PublicKey("c".repeat(64));
        for (PublicKey owner : List.of(ALICE, ALICE, BOB)) {
            ScheduledMessage m = message(new ScheduleId(UUID.randomUUID()),
                    TestEvents.at(windowStart + 5).by(owner).build());
            assertThat(store.create(m, keyOf(m), backstop)).isInstanceOf(CreateResult.Created.class);
        }
        ScheduledMessage carols = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(windowStart + 6).by(carol).build());

        assertThat(store.create(carols, keyOf(carols), backstop)).isEqualTo(new CreateResult
                .ChannelWindowFull(3, Instant.ofEpochSecond(windowStart), MessageAdmission.WindowScope.CHANNEL));
        assertThat(store.find(carols.id())).isEmpty();
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

    @Test
    void createBatch_concurrentBatchesNamingTwoChannelsInEitherOrder_admitExactlyTheWindowLimitInEach()
            throws Exception {
        CreateLimits backstop = new CreateLimits(100, 10, 5, Duration.ofMinutes(5), 1);
        long windowStart = Math.floorDiv(inSeconds(3600), 300) * 300;
        List<Callable<List<CreateResult>>> batches = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            PublicKey owner = new PublicKey(String.format("%064x", i + 16));
            List<String> channels = i % 2 == 0 ? List.of("general", "random") : List.of("random", "general");
            List<MessageAdmission.BatchEntry> entries = channels.stream().map(channel -> message(
                            new ScheduleId(UUID.randomUUID()),
                            TestEvents.at(windowStart + 7).by(owner).channel(channel).build()))
                    .map(m -> new MessageAdmission.BatchEntry(m, keyOf(m))).toList();
            batches.add(() -> store.createBatch(entries, backstop));
        }

        List<CreateResult> results = concurrently(batches).stream().flatMap(List::stream).toList();

        assertThat(results).filteredOn(r -> r instanceof CreateResult.Created).hasSize(10);
        assertThat(results).filteredOn(r -> r instanceof CreateResult.ChannelWindowFull).hasSize(6);
        for (String channel : List.of("general", "random")) {
            assertThat(results).filteredOn(r -> r instanceof CreateResult.Created created
                    && created.message().channel().value().equals(channel)).as(channel).hasSize(5);
        }
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
        assertThat(store.replace(cancelled, changed(cancelled.cancel(now())))).isTrue();
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
        ScheduledMessage cancelled = changed(stored.cancel(now()));

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
        boolean staleWrite = store.replace(stored, changed(stored.cancel(now())));

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
    void replace_concurrentWritersFromTheSameRead_exactlyOneWins() throws Exception {
        ScheduledMessage stored = createdMessage(dueIn(Duration.ofHours(1)));
        Instant now = now();
        // Writes that each change the state or the revision, which is what the compare-and-set compares.
        List<ScheduledMessage> competing = List.of(
                changed(stored.cancel(now)),
                revised(stored, TestEvents.at(inSeconds(7200)).content("r2").build()),
                revised(stored, TestEvents.at(inSeconds(9000)).content("another r2").build()));

        List<Boolean> results = concurrently(competing.stream()
                .<Callable<Boolean>>map(next -> () -> store.replace(stored, next)).toList());

        assertThat(results).containsOnlyOnce(true);
        ScheduledMessage winner = competing.get(results.indexOf(true));
        assertThat(store.find(stored.id())).contains(winner);
    }

    @Test
    void replace_whileADispatcherHoldsTheMessage_changesNothing() {
        ScheduledMessage stored = createdMessage(dueIn(Duration.ofSeconds(-60)));
        assertThat(delivery.claim(1, LEASE).messages()).hasSize(1);

        boolean written = store.replace(stored, changed(stored.cancel(now())));

        assertThat(written).as("the owner's read said scheduled; the row is sending now").isFalse();
        assertThat(store.find(stored.id()).orElseThrow().state()).isInstanceOf(ScheduleState.Sending.class);
    }

    @Test
    void list_byteBudget_takesItemsWhileTheyFit_firstOneAlways_andContinuesAfterTheLastTaken() {
        List<ScheduledMessage> made = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            made.add(createdMessage(message(new ScheduleId(UUID.randomUUID()),
                    TestEvents.at(inSeconds(3600 + i)).content("z".repeat(3000)).build())));
        }
        // Each item is estimated at its event's JSON (a little over 3 000 bytes) + 512: three fit in 12 000.
        ListQuery query = new ListQuery(ALICE, Set.of("scheduled"), Optional.empty(), 50, Optional.empty(), 12_000);

        Page first = store.list(query);
        ScheduledMessage lastTaken = first.items().get(first.items().size() - 1);
        Page rest = store.list(new ListQuery(ALICE, Set.of("scheduled"), Optional.empty(), 50,
                Optional.of(new Cursor(lastTaken.dueAt(), lastTaken.id())), 12_000));
        Page tiny = store.list(new ListQuery(ALICE, Set.of("scheduled"), Optional.empty(), 50, Optional.empty(), 1));

        assertThat(first.items()).containsExactlyElementsOf(made.subList(0, 3));
        assertThat(first.next()).contains(new Cursor(lastTaken.dueAt(), lastTaken.id()));
        assertThat(rest.items()).containsExactlyElementsOf(made.subList(3, 5));
        assertThat(rest.next()).isEmpty();
        assertThat(tiny.items()).containsExactly(made.get(0));
        assertThat(tiny.next()).isPresent();
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

    @Test
    void replaceRevision_intoAWindowWhereTheOwnerIsFull_isRefusedWithTheOwnerScope() {
        CreateLimits perOwner = new CreateLimits(10_000, 1, 10, Duration.ofMinutes(5), 1);
        long due = (inSeconds(3600) / 300) * 300 + 10;
        createdMessage(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(due).build()));
        createdMessage(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(due).by(BOB).build()));
        ScheduledMessage later = createdMessage(dueIn(Duration.ofHours(3)));

        assertThat(store.replaceRevision(later, revised(later, TestEvents.at(due + 5).build()), perOwner))
                .isEqualTo(new ReviseResult.ChannelWindowFull(1, Instant.ofEpochSecond(due - 10),
                        MessageAdmission.WindowScope.OWNER));
        assertThat(store.find(later.id())).contains(later);
    }

    @Test
    void replaceRevision_manyEdits_keepTheEventsOfOnlyTheLatestRevisionsKept() {
        CreateLimits keepTwo = new CreateLimits(10_000, 10_000, 10_000, Duration.ofMinutes(5), 2);
        ScheduledMessage current = createdMessage(dueIn(Duration.ofHours(1)));
        for (int i = 2; i <= 5; i++) {
            ScheduledMessage next = revised(current, TestEvents.at(inSeconds(3600 + i)).content("r" + i).build());
            assertThat(store.replaceRevision(current, next, keepTwo)).isEqualTo(new ReviseResult.Replaced());
            current = next;
        }

        assertThat(revisions(current.id())).containsExactly(new Revision(1), new Revision(2), new Revision(3),
                new Revision(4), new Revision(5));
        assertThat(revisionsWithEvent(current.id())).containsExactly(new Revision(4), new Revision(5));
        assertThat(store.find(current.id())).contains(current);
    }

    @Test
    void replaceRevision_defaultLimits_keepOnlyTheCurrentRevisionsEvent() {
        CreateLimits defaults = new CreateLimits(10_000, 10_000, Duration.ofMinutes(5));
        ScheduledMessage message = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage next = revised(message, TestEvents.at(inSeconds(7200)).content("r2").build());

        assertThat(store.replaceRevision(message, next, defaults)).isEqualTo(new ReviseResult.Replaced());

        assertThat(revisionsWithEvent(message.id())).containsExactly(new Revision(2));
        assertThat(revisions(message.id())).containsExactly(new Revision(1), new Revision(2));
    }

    // ------------------------------------------------------------------------------------------------------
    // batches (createBatch): each entry decided as create() decides one, in order, in one transaction

    @Test
    void createBatch_mixedEntries_eachAnsweredAsASingleCreateInOrderAndOnlyTheAdmittedStored() {
        CreateLimits twoPerWindow = new CreateLimits(100, 2, 100, Duration.ofMinutes(5), 1);
        long windowStart = Math.floorDiv(inSeconds(7200), 300) * 300;
        ScheduledMessage stored = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(windowStart + 1).build()));
        ScheduledMessage fresh = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + 2).build());
        ScheduledMessage freshAgain = withId(fresh, new ScheduleId(UUID.randomUUID()));
        ScheduledMessage storedAgain = withId(stored, new ScheduleId(UUID.randomUUID()));
        ScheduledMessage sameKeyOtherEvent = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(9000)).build());
        ScheduledMessage windowFull = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + 3).build());
        ScheduledMessage elsewhere = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(windowStart + 4).channel("random").build());

        List<CreateResult> results = store.createBatch(List.of(
                new MessageAdmission.BatchEntry(fresh, keyOf(fresh)),
                new MessageAdmission.BatchEntry(freshAgain, keyOf(fresh)),
                new MessageAdmission.BatchEntry(storedAgain, keyOf(stored)),
                new MessageAdmission.BatchEntry(sameKeyOtherEvent, keyOf(fresh)),
                new MessageAdmission.BatchEntry(windowFull, keyOf(windowFull)),
                new MessageAdmission.BatchEntry(elsewhere, keyOf(elsewhere))), twoPerWindow);

        assertThat(results).containsExactly(
                new CreateResult.Created(fresh),
                new CreateResult.Replayed(fresh),
                new CreateResult.Replayed(stored),
                new CreateResult.IdempotencyConflict(fresh.id(), fresh.eventId()),
                new CreateResult.ChannelWindowFull(2, Instant.ofEpochSecond(windowStart),
                        MessageAdmission.WindowScope.OWNER),
                new CreateResult.Created(elsewhere));
        assertThat(store.find(fresh.id())).contains(fresh);
        assertThat(store.find(elsewhere.id())).contains(elsewhere);
        for (ScheduledMessage refused : List.of(freshAgain, storedAgain, sameKeyOtherEvent, windowFull)) {
            assertThat(store.find(refused.id())).as("not stored: %s", refused.id()).isEmpty();
        }
        assertThat(revisions(fresh.id())).containsExactly(Revision.FIRST);
        assertThat(store.create(withId(fresh, new ScheduleId(UUID.randomUUID())), keyOf(fresh), NO_LIMITS))
                .as("the batch's key is stored like a single create's").isEqualTo(new CreateResult.Replayed(fresh));
    }

    @Test
    void createBatch_channelWideBackstop_countsOtherOwnersAndTheBatchsEarlierEntriesPerWindow() {
        CreateLimits backstop = new CreateLimits(100, 10, 3, Duration.ofMinutes(5), 1);
        long windowStart = Math.floorDiv(inSeconds(3600), 300) * 300;
        ScheduledMessage bobs = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(windowStart + 5).by(BOB).build());
        assertThat(store.create(bobs, keyOf(bobs), backstop)).isEqualTo(new CreateResult.Created(bobs));
        List<ScheduledMessage> batch = new ArrayList<>();
        for (long offset : new long[] {1, 2, 3, 300, 301}) {
            batch.add(message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + offset).build()));
        }

        List<CreateResult> results = store.createBatch(batch.stream()
                .map(m -> new MessageAdmission.BatchEntry(m, keyOf(m))).toList(), backstop);

        // Bob's message and the batch's first two fill the first window; the next window starts empty.
        assertThat(results).containsExactly(new CreateResult.Created(batch.get(0)),
                new CreateResult.Created(batch.get(1)),
                new CreateResult.ChannelWindowFull(3, Instant.ofEpochSecond(windowStart),
                        MessageAdmission.WindowScope.CHANNEL),
                new CreateResult.Created(batch.get(3)), new CreateResult.Created(batch.get(4)));
        assertThat(store.find(batch.get(2).id())).isEmpty();
    }

    @Test
    void createBatch_keyOfARefusedEntry_isFreeForALaterEntry() {
        CreateLimits onePerWindow = new CreateLimits(100, 1, 100, Duration.ofMinutes(5), 1);
        long windowStart = Math.floorDiv(inSeconds(3600), 300) * 300;
        ScheduledMessage first = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + 1).build());
        ScheduledMessage refused = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + 2).build());
        ScheduledMessage retried = message(new ScheduleId(UUID.randomUUID()), TestEvents.at(windowStart + 400).build());
        ScheduledMessage replayOfRetried = withId(retried, new ScheduleId(UUID.randomUUID()));

        List<CreateResult> results = store.createBatch(List.of(new MessageAdmission.BatchEntry(first, keyOf(first)),
                new MessageAdmission.BatchEntry(refused, keyOf(refused)),
                new MessageAdmission.BatchEntry(retried, keyOf(refused)),
                new MessageAdmission.BatchEntry(replayOfRetried, keyOf(refused))), onePerWindow);

        assertThat(results).containsExactly(new CreateResult.Created(first),
                new CreateResult.ChannelWindowFull(1, Instant.ofEpochSecond(windowStart),
                        MessageAdmission.WindowScope.OWNER),
                new CreateResult.Created(retried), new CreateResult.Replayed(retried));
        assertThat(store.find(refused.id())).isEmpty();
        assertThat(store.find(replayOfRetried.id())).isEmpty();
    }

    @Test
    void createBatch_pendingLimit_countsTheBatchsEarlierEntries() {
        CreateLimits threePending = new CreateLimits(3, 100, Duration.ofMinutes(5));
        createdMessage(dueIn(Duration.ofHours(1)));
        List<ScheduledMessage> batch = List.of(dueIn(Duration.ofHours(2)), dueIn(Duration.ofHours(3)),
                dueIn(Duration.ofHours(4)));

        List<CreateResult> results = store.createBatch(batch.stream()
                .map(m -> new MessageAdmission.BatchEntry(m, keyOf(m))).toList(), threePending);

        assertThat(results).containsExactly(new CreateResult.Created(batch.get(0)),
                new CreateResult.Created(batch.get(1)), new CreateResult.TooManyPending(3));
    }

    @Test
    void createBatch_pendingLimit_countsOnlyTheEntriesItStores() {
        CreateLimits threePending = new CreateLimits(3, 100, Duration.ofMinutes(5));
        ScheduledMessage stored = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage storedAgain = withId(stored, new ScheduleId(UUID.randomUUID()));
        ScheduledMessage first = dueIn(Duration.ofHours(2));
        ScheduledMessage firstAgain = withId(first, new ScheduleId(UUID.randomUUID()));
        ScheduledMessage second = dueIn(Duration.ofHours(3));
        ScheduledMessage third = dueIn(Duration.ofHours(4));

        // Replays store nothing, so they leave room: two of the fresh entries fit beside the stored one.
        List<CreateResult> results = store.createBatch(List.of(
                new MessageAdmission.BatchEntry(storedAgain, keyOf(stored)),
                new MessageAdmission.BatchEntry(first, keyOf(first)),
                new MessageAdmission.BatchEntry(firstAgain, keyOf(first)),
                new MessageAdmission.BatchEntry(second, keyOf(second)),
                new MessageAdmission.BatchEntry(third, keyOf(third))), threePending);

        assertThat(results).containsExactly(new CreateResult.Replayed(stored), new CreateResult.Created(first),
                new CreateResult.Replayed(first), new CreateResult.Created(second),
                new CreateResult.TooManyPending(3));
        assertThat(store.find(third.id())).isEmpty();
    }

    @Test
    void createBatch_deletedChannel_refusesOnlyTheEntriesForIt() {
        deleteChannel(new Channel("gone"));
        ScheduledMessage gone = message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(600)).channel("gone").build());
        ScheduledMessage fine = dueIn(Duration.ofMinutes(20));

        List<CreateResult> results = store.createBatch(List.of(new MessageAdmission.BatchEntry(gone, keyOf(gone)),
                new MessageAdmission.BatchEntry(fine, keyOf(fine))), NO_LIMITS);

        assertThat(results).containsExactly(new CreateResult.ChannelDeleted(), new CreateResult.Created(fine));
        assertThat(store.find(gone.id())).isEmpty();
    }

    @Test
    void createBatch_series_isStoredOnEveryMessageListedAndSummedUp() {
        SeriesId series = new SeriesId(UUID.randomUUID());
        List<ScheduledMessage> members = List.of(dueIn(Duration.ofHours(1)).inSeries(series),
                dueIn(Duration.ofHours(2)).inSeries(series), dueIn(Duration.ofHours(3)).inSeries(series));
        ScheduledMessage loose = createdMessage(dueIn(Duration.ofMinutes(30)));
        store.createBatch(members.stream().map(m -> new MessageAdmission.BatchEntry(m, keyOf(m))).toList(), NO_LIMITS);
        assertThat(store.replace(members.get(0), changed(members.get(0).cancel(now())))).isTrue();

        Page page = store.list(new ListQuery(ALICE, Set.of("scheduled", "cancelled"), Optional.empty(), 10,
                Optional.empty(), ListQuery.DEFAULT_MAX_BYTES, Optional.of(series)));
        SeriesSummaryUseCase.SeriesSummary summary = store.seriesSummary(ALICE, series).orElseThrow();

        assertThat(store.find(members.get(1).id())).contains(members.get(1));
        assertThat(page.items()).extracting(ScheduledMessage::id).containsExactly(members.get(0).id(),
                members.get(1).id(), members.get(2).id());
        assertThat(page.items()).extracting(ScheduledMessage::series).containsOnly(Optional.of(series));
        assertThat(page.items()).extracting(ScheduledMessage::id).doesNotContain(loose.id());
        assertThat(summary).isEqualTo(new SeriesSummaryUseCase.SeriesSummary(series, 3, 2, 0, 1, 0,
                Optional.of(members.get(1).dueAt()), Optional.of(members.get(2).dueAt())));
        assertThat(store.seriesSummary(BOB, series)).as("another owner sees no such series").isEmpty();
        assertThat(store.seriesSummary(ALICE, new SeriesId(UUID.randomUUID()))).isEmpty();
    }

    // ------------------------------------------------------------------------------------------------------
    // bulk cancel (cancelMatching)

    @Test
    void cancelMatching_byChannel_cancelsTheOwnersPendingThereAndNothingElse() {
        ScheduledMessage mine = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage mineLater = createdMessage(dueIn(Duration.ofHours(2)));
        ScheduledMessage otherChannel = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(3600)).channel("random").build()));
        ScheduledMessage bobs = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(3600)).by(BOB).build()));

        CancelMatchingUseCase.CancelMatchingResult.Cancelled result = store.cancelMatching(ALICE,
                selection(Optional.of(GENERAL), Optional.empty(), Optional.empty(), Optional.empty()));

        assertThat(result).isEqualTo(new CancelMatchingUseCase.CancelMatchingResult.Cancelled(2, 0));
        for (ScheduledMessage cancelled : List.of(mine, mineLater)) {
            ScheduledMessage after = store.find(cancelled.id()).orElseThrow();
            assertThat(after.state()).isInstanceOf(ScheduleState.Cancelled.class);
            assertThat(after.event()).as("payload deleted at once").isEmpty();
            assertThat(revisionsWithEvent(cancelled.id())).as("no revision keeps the event").isEmpty();
        }
        assertThat(store.find(otherChannel.id())).contains(otherChannel);
        assertThat(store.find(bobs.id())).contains(bobs);
    }

    @Test
    void cancelMatching_byDueRange_includesItsStartAndExcludesItsEnd() {
        ScheduledMessage before = createdMessage(dueIn(Duration.ofMinutes(59)));
        ScheduledMessage atStart = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage inside = createdMessage(dueIn(Duration.ofMinutes(90)));
        ScheduledMessage atEnd = createdMessage(dueIn(Duration.ofHours(2)));
        ScheduledMessage bobsInside = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(5400)).by(BOB).build()));

        CancelMatchingUseCase.CancelMatchingResult.Cancelled result = store.cancelMatching(ALICE, selection(
                Optional.empty(), Optional.empty(), Optional.of(atStart.dueAt()), Optional.of(atEnd.dueAt())));

        assertThat(result.cancelled()).isEqualTo(2);
        assertThat(stateOf(atStart)).isInstanceOf(ScheduleState.Cancelled.class);
        assertThat(stateOf(inside)).isInstanceOf(ScheduleState.Cancelled.class);
        assertThat(store.find(before.id())).contains(before);
        assertThat(store.find(atEnd.id())).contains(atEnd);
        assertThat(store.find(bobsInside.id())).contains(bobsInside);
    }

    @Test
    void cancelMatching_bySeries_leavesNonePendingAndCountsTheOneBeingSent() {
        SeriesId series = new SeriesId(UUID.randomUUID());
        List<ScheduledMessage> members = List.of(dueIn(Duration.ofSeconds(-30)).inSeries(series),
                dueIn(Duration.ofHours(1)).inSeries(series), dueIn(Duration.ofHours(2)).inSeries(series));
        store.createBatch(members.stream().map(m -> new MessageAdmission.BatchEntry(m, keyOf(m))).toList(), NO_LIMITS);
        ScheduledMessage loose = createdMessage(dueIn(Duration.ofHours(1)));
        assertThat(delivery.claim(10, LEASE).messages()).extracting(m -> m.claim().id())
                .containsExactly(members.get(0).id());

        CancelMatchingUseCase.CancelMatchingResult.Cancelled result = store.cancelMatching(ALICE,
                selection(Optional.empty(), Optional.of(series), Optional.empty(), Optional.empty()));

        assertThat(result).isEqualTo(new CancelMatchingUseCase.CancelMatchingResult.Cancelled(2, 1));
        assertThat(stateOf(members.get(0))).as("being sent: left to its claim").isInstanceOf(ScheduleState.Sending.class);
        assertThat(stateOf(members.get(1))).isInstanceOf(ScheduleState.Cancelled.class);
        assertThat(stateOf(members.get(2))).isInstanceOf(ScheduleState.Cancelled.class);
        assertThat(store.find(loose.id())).contains(loose);
        assertThat(store.seriesSummary(ALICE, series).orElseThrow().pending()).isEqualTo(1);
        assertThat(store.cancelMatching(BOB, selection(Optional.empty(), Optional.of(series), Optional.empty(),
                Optional.empty()))).as("another owner's series is not theirs to cancel")
                .isEqualTo(new CancelMatchingUseCase.CancelMatchingResult.Cancelled(0, 0));
    }

    private static CancelMatchingUseCase.Selection selection(Optional<Channel> channel, Optional<SeriesId> series,
                                                             Optional<Instant> dueAfter, Optional<Instant> dueBefore) {
        return new CancelMatchingUseCase.Selection(channel, series, dueAfter, dueBefore);
    }

    private ScheduleState stateOf(ScheduledMessage message) {
        return store.find(message.id()).orElseThrow().state();
    }

    /** Every revision number the store keeps for {@code id}, oldest first. */
    protected abstract List<Revision> revisions(ScheduleId id);

    /** The revisions of {@code id} whose signed event the store still holds, oldest first. */
    protected abstract List<Revision> revisionsWithEvent(ScheduleId id);
}

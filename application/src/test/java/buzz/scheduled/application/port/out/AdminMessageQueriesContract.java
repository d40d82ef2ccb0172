package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.AdminMessagesUseCase;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminMessage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminPage;
import buzz.scheduled.application.port.in.AdminMessagesUseCase.AdminQuery;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What every {@link AdminMessageQueries} answers operators, run against the in-memory rows and PostgreSQL: any
 * owner's metadata filtered by state, channel, owner and due range, in (due time, id) order either way with a cursor,
 * how many a query matches, and one message by id.
 */
public abstract class AdminMessageQueriesContract<
        S extends OwnerMessageQueries & MessageAdmission & OwnerMessageChanges> extends StoreContractSupport<S> {
    private static final Set<String> EVERY_STATE = Set.copyOf(StateName.wireNames(StateName.all()));

    /** The queries over the rows of the store {@link #emptyStore()} made last. */
    protected abstract AdminMessageQueries adminQueries();

    @Test
    void list_everyOwnerAndState_inDueOrderWithEveryMetadataField() {
        ScheduledMessage later = createdMessage(dueIn(Duration.ofHours(2)));
        ScheduledMessage bobs = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(3600)).by(BOB).build()));
        ScheduledMessage failed = createdMessage(dueIn(Duration.ofSeconds(-30)));
        ClaimedMessage claimed = delivery.claim(10, LEASE).messages().get(0);
        delivery.finish(List.of(new Finish.Fail(claimed.claim(), claimed.revision(), FailureReason.RELAY_REJECTED,
                "blocked: no")));

        AdminPage page = adminQueries().list(query(EVERY_STATE, Optional.empty(), Optional.empty(), 50));

        assertThat(page.items()).extracting(AdminMessage::id).containsExactly(failed.id(), bobs.id(), later.id());
        assertThat(page.next()).isEmpty();
        AdminMessage first = page.items().get(0);
        assertThat(first.owner()).isEqualTo(ALICE);
        assertThat(first.channel()).isEqualTo(GENERAL);
        assertThat(first.revision()).isEqualTo(1);
        assertThat(first.state()).isEqualTo("failed");
        assertThat(first.reason()).contains("relay_rejected");
        assertThat(first.eventId()).isEqualTo(failed.eventId());
        assertThat(first.dueAt()).isEqualTo(failed.dueAt());
        assertThat(first.attempts()).isEqualTo(1);
        assertThat(first.finishedAt()).isPresent();
        assertThat(first.purged()).as("a relay refusal keeps the event for a requeue").isFalse();
        AdminMessage pending = page.items().get(2);
        assertThat(pending.state()).isEqualTo("scheduled");
        assertThat(pending.reason()).isEmpty();
        assertThat(pending.finishedAt()).isEmpty();
        assertThat(pending.purged()).isFalse();
        assertThat(pending.createdAt()).isEqualTo(later.createdAt());
    }

    @Test
    void list_byStateChannelAndOwner_keepsOnlyTheMatches() {
        ScheduledMessage general = createdMessage(dueIn(Duration.ofHours(1)));
        ScheduledMessage ops = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(3700)).channel("ops").build()));
        ScheduledMessage bobs = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(3800)).by(BOB).build()));
        ScheduledMessage cancelled = createdMessage(dueIn(Duration.ofHours(2)));
        assertThat(store.replace(cancelled, changed(cancelled.cancel(now())))).isTrue();

        assertThat(ids(query(Set.of("scheduled"), Optional.empty(), Optional.empty(), 50)))
                .containsExactly(general.id(), ops.id(), bobs.id());
        assertThat(ids(query(EVERY_STATE, Optional.of(new Channel("ops")), Optional.empty(), 50)))
                .containsExactly(ops.id());
        assertThat(ids(query(EVERY_STATE, Optional.empty(), Optional.of(BOB), 50))).containsExactly(bobs.id());
        assertThat(ids(query(Set.of("cancelled"), Optional.of(GENERAL), Optional.of(ALICE), 50)))
                .containsExactly(cancelled.id());
    }

    @Test
    void list_pagedByTheCursor_visitsEveryMessageOnceInOrder() {
        List<ScheduleId> expected = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            expected.add(createdMessage(dueIn(Duration.ofMinutes(10L + i))).id());
        }
        List<ScheduleId> visited = new ArrayList<>();
        AdminQuery query = query(EVERY_STATE, Optional.empty(), Optional.empty(), 3);
        int pages = 0;
        while (true) {
            AdminPage page = adminQueries().list(query);
            pages++;
            page.items().forEach(item -> visited.add(item.id()));
            if (page.next().isEmpty()) {
                break;
            }
            query = new AdminQuery(EVERY_STATE, Optional.empty(), Optional.empty(), 3, page.next());
        }

        assertThat(visited).isEqualTo(expected);
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void list_dueRangeAndLatestFirst_pagedByTheCursor_andCountedWhateverThePage() {
        List<ScheduledMessage> messages = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            messages.add(createdMessage(dueIn(Duration.ofMinutes(10L + 10 * i))));
        }
        AdminQuery inRange = new AdminQuery(EVERY_STATE, Optional.empty(), Optional.empty(), 2, Optional.empty(),
                Optional.of(messages.get(1).dueAt()), Optional.of(messages.get(5).dueAt()), true);
        List<ScheduleId> visited = new ArrayList<>();
        AdminQuery query = inRange;
        while (true) {
            AdminPage page = adminQueries().list(query);
            page.items().forEach(item -> visited.add(item.id()));
            if (page.next().isEmpty()) {
                break;
            }
            query = new AdminQuery(EVERY_STATE, Optional.empty(), Optional.empty(), 2, page.next(),
                    inRange.dueFrom(), inRange.dueBefore(), true);
        }

        assertThat(visited).as("due in [second, sixth), latest first").containsExactly(messages.get(4).id(),
                messages.get(3).id(), messages.get(2).id(), messages.get(1).id());
        assertThat(adminQueries().count(inRange)).isEqualTo(new AdminMessagesUseCase.MatchCount(4, false));
        assertThat(adminQueries().count(query(Set.of("failed"), Optional.empty(), Optional.empty(), 1)))
                .isEqualTo(new AdminMessagesUseCase.MatchCount(0, false));
        assertThat(adminQueries().count(query(EVERY_STATE, Optional.empty(), Optional.of(ALICE), 1)))
                .as("the limit and the cursor aside").isEqualTo(new AdminMessagesUseCase.MatchCount(6, false));
    }

    @Test
    void find_anyOwnersMessage_isItsMetadata_andAnUnknownIdIsEmpty() {
        ScheduledMessage bobs = createdMessage(message(new ScheduleId(UUID.randomUUID()),
                TestEvents.at(inSeconds(600)).by(BOB).build()));

        Optional<AdminMessage> found = adminQueries().find(bobs.id());

        assertThat(found).hasValueSatisfying(message -> {
            assertThat(message.id()).isEqualTo(bobs.id());
            assertThat(message.owner()).isEqualTo(BOB);
            assertThat(message.state()).isEqualTo("scheduled");
            assertThat(message.dueAt()).isEqualTo(bobs.dueAt());
            assertThat(message.purged()).isFalse();
        });
        assertThat(adminQueries().find(new ScheduleId(UUID.randomUUID()))).isEmpty();
    }

    private List<ScheduleId> ids(AdminQuery query) {
        return adminQueries().list(query).items().stream().map(AdminMessage::id).toList();
    }

    private static AdminQuery query(Set<String> states, Optional<Channel> channel,
                                    Optional<buzz.scheduled.domain.nostr.PublicKey> owner, int limit) {
        return new AdminQuery(states, channel, owner, limit, Optional.empty());
    }
}

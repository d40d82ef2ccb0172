package buzz.scheduled.adapters.relay.nip29;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.relay.nip29.GroupBacklog.PageEnd;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Paging the NIP-29 backlog with limit/until, page by page (no network). */
class GroupBacklogTest {
    private static final Bip340Signer RELAY = new Bip340Signer(new SecretKey("7e".repeat(32)), new SecureRandom());
    private static final String STATE = GroupBacklog.stateFilter(RELAY.publicKey());
    private static final long T = 1_800_000_000L;

    private static NostrEvent state(long at, String group) {
        return RELAY.sign(at, GroupDirectory.METADATA, List.of(List.of("d", group)), "");
    }

    private static NostrEvent removal(long at, String group) {
        return RELAY.sign(at, GroupDirectory.REMOVE_USER, List.of(List.of("h", group), List.of("p", "a1".repeat(32))), "");
    }

    @Test
    void pages_fullPagesThenShortOnes_walkBothFiltersWithUntilTheOldestSeenThenEnd() {
        GroupBacklog backlog = new GroupBacklog(RELAY.publicKey());

        String first = backlog.nextRequest(2);
        backlog.counted(state(T + 9, "a"));
        backlog.counted(state(T + 8, "b"));
        PageEnd afterFirst = backlog.pageEnded(2);
        String second = backlog.nextRequest(2);
        backlog.counted(state(T + 8, "b")); // the boundary second again
        backlog.counted(state(T + 7, "c"));
        PageEnd afterSecond = backlog.pageEnded(2);
        String third = backlog.nextRequest(2);
        backlog.counted(state(T + 7, "c"));
        PageEnd afterThird = backlog.pageEnded(2);
        String moderation = backlog.nextRequest(2);
        PageEnd afterModeration = backlog.pageEnded(2);

        assertThat(first).isEqualTo("[\"REQ\",\"buzz-nip29-page-1\",{" + STATE + ",\"limit\":2}]");
        assertThat(afterFirst).isEqualTo(PageEnd.MORE);
        assertThat(second).isEqualTo("[\"REQ\",\"buzz-nip29-page-2\",{" + STATE + ",\"limit\":2,\"until\":"
                + (T + 8) + "}]");
        assertThat(afterSecond).isEqualTo(PageEnd.MORE);
        assertThat(third).endsWith(",\"until\":" + (T + 7) + "}]");
        assertThat(afterThird).as("a short page ends the filter").isEqualTo(PageEnd.MORE);
        assertThat(moderation).isEqualTo("[\"REQ\",\"buzz-nip29-page-4\",{" + GroupBacklog.MODERATION_FILTER
                + ",\"limit\":2}]");
        assertThat(afterModeration).isEqualTo(PageEnd.DONE);
        assertThat(backlog.pagesRead()).isEqualTo(4);
    }

    @Test
    void pageEnded_fullPageOfEventsSeenBefore_isStuck() {
        GroupBacklog backlog = new GroupBacklog(RELAY.publicKey());
        NostrEvent one = state(T, "a");
        NostrEvent two = state(T, "b");
        backlog.nextRequest(2);
        backlog.counted(one);
        backlog.counted(two);
        backlog.pageEnded(2);

        backlog.nextRequest(2);
        backlog.counted(one);
        backlog.counted(two);

        assertThat(backlog.pageEnded(2)).isEqualTo(PageEnd.STUCK);
        assertThat(backlog.stuckReason(2)).contains("at least 2 events share created_at " + T);
    }

    @Test
    void pageEnded_unreadableEventsCountTowardsAFullPage() {
        GroupBacklog backlog = new GroupBacklog(RELAY.publicKey());
        backlog.nextRequest(2);
        backlog.counted(state(T, "a"));
        backlog.countedUnreadable();

        assertThat(backlog.pageEnded(2)).as("not mistaken for the last page").isEqualTo(PageEnd.MORE);
        assertThat(backlog.nextRequest(2)).contains("\"until\":" + T);
    }

    @Test
    void hold_storedThenLiveSighting_isCarriedOutOnceAsLiveAndStoredOnesOldestFirst() {
        GroupBacklog backlog = new GroupBacklog(RELAY.publicKey());
        NostrEvent late = removal(T + 5, "g");
        NostrEvent early = removal(T + 1, "g");
        NostrEvent both = removal(T + 3, "g");

        backlog.hold(late, false);
        backlog.hold(both, false);
        backlog.hold(early, false);
        backlog.hold(both, true);
        backlog.hold(both, false);

        assertThat(backlog.heldStored()).containsExactly(early, late);
        assertThat(backlog.heldLive()).containsExactly(both);
    }

    @Test
    void signedByTheRelay_sameEventTwice_countsOnce() {
        GroupBacklog backlog = new GroupBacklog(RELAY.publicKey());
        NostrEvent event = state(T, "a");

        backlog.signedByTheRelay(event);
        backlog.signedByTheRelay(event);
        backlog.signedByTheRelay(state(T, "b"));

        assertThat(backlog.signedState()).isEqualTo(2);
    }
}

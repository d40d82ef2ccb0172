package buzz.scheduled.benchmarks.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.benchmarks.dispatch.DueEvents.DueEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.util.List;
import org.junit.jupiter.api.Test;

class DueEventsTest {

    @Test
    void sign_dueFunction_setsEachCreatedAtAndAChannelTag() {
        List<DueEvent> events = new DueEvents(1).sign(10, 4, n -> 1_700_000_000L + n / 2);

        assertThat(events).extracting(DueEvent::dueSecond)
                .containsExactly(1_700_000_000L, 1_700_000_000L, 1_700_000_001L, 1_700_000_001L);
        assertThat(events).allSatisfy(due -> {
            assertThat(due.event().kind()).isEqualTo(9);
            assertThat(due.channel()).matches("bench-channel-\\d{3}");
            assertThat(due.event().idMatchesContent()).isTrue();
            assertThat(due.json()).isEqualTo(NostrEventJson.write(due.event()));
        });
    }

    @Test
    void sign_differentNumbersOrSeeds_neverRepeatAnEvent() {
        List<DueEvent> first = new DueEvents(1).sign(0, 20, n -> 1_700_000_000L);
        List<DueEvent> next = new DueEvents(1).sign(20, 20, n -> 1_700_000_000L);
        List<DueEvent> otherSeed = new DueEvents(2).sign(0, 20, n -> 1_700_000_000L);

        assertThat(first).extracting(DueEvent::id).doesNotHaveDuplicates()
                .doesNotContainAnyElementsOf(next.stream().map(DueEvent::id).toList())
                .doesNotContainAnyElementsOf(otherSeed.stream().map(DueEvent::id).toList());
    }

    @Test
    void sign_sameSeedAndNumbers_signsTheSameEvents() {
        assertThat(new DueEvents(5).sign(0, 3, n -> 1_700_000_000L))
                .isEqualTo(new DueEvents(5).sign(0, 3, n -> 1_700_000_000L));
    }
}

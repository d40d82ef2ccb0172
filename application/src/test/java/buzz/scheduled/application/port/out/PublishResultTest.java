package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The kind of a relay's answer, which becomes a metrics label: from a bounded vocabulary whatever the relay says. */
class PublishResultTest {

    @Test
    void transientKind_nip01RetryablePrefix_isThatPrefix() {
        assertThat(new PublishResult.Transient("rate-limited: slow down").kind()).isEqualTo("rate-limited");
        assertThat(new PublishResult.Transient("auth-required: who are you").kind()).isEqualTo("auth-required");
        assertThat(new PublishResult.Transient("timeout: no OK within PT10S").kind()).isEqualTo("timeout");
    }

    @Test
    void transientKind_wordsARelayMadeUp_areAllOther() {
        assertThat(IntStream.range(0, 1_000).mapToObj(i -> new PublishResult.Transient("word" + (char) ('a' + i % 26)
                        + i + ": made up").kind()).distinct())
                .containsExactly("other");
        assertThat(new PublishResult.Transient("Rate-Limited: shouting").kind()).isEqualTo("other");
    }

    @Test
    void transientKind_noPrefix_isUnknown() {
        assertThat(new PublishResult.Transient("something went wrong").kind()).isEqualTo("unknown");
    }

    @Test
    void rejectedKind_isItsNip01Prefix() {
        assertThat(new PublishResult.Rejected("blocked", "you are banned").kind()).isEqualTo("blocked");
    }
}

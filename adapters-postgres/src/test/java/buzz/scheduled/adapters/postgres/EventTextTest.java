package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventTextTest {

    private static final NostrEvent EVENT = new NostrEvent(new EventId("1".repeat(64)), new PublicKey("2".repeat(64)),
            1_767_225_600L, 9, List.of(List.of("h", "general"), List.of("e", "3".repeat(64), "", "reply"), List.of("t")),
            "line\nbreak \"quoted\" \\ tab\t nul\u0000 ctrl\u001f sep\u2028 emoji😀 <b>&</b>", new Signature("4".repeat(128)));

    @Test
    void write_event_putsTheSevenFieldsInNip01Order() {
        String text = EventText.write(EVENT);

        assertThat(text).startsWith("{\"id\":\"" + "1".repeat(64) + "\",\"pubkey\":\"" + "2".repeat(64)
                + "\",\"created_at\":1767225600,\"kind\":9,\"tags\":[[\"h\",\"general\"],");
        assertThat(text).endsWith(",\"sig\":\"" + "4".repeat(128) + "\"}");
        assertThat(text).doesNotContain("\u0000");
    }

    @Test
    void read_whatWriteWrote_givesTheSameEvent() {
        assertThat(EventText.read(EventText.write(EVENT))).isEqualTo(EVENT);
    }

    @Test
    void read_fieldMissing_namesTheProblem() {
        String withoutSig = EventText.write(EVENT).replaceAll(",\"sig\":\"4+\"", "");

        assertThatThrownBy(() -> EventText.read(withoutSig))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("stored event is malformed: ")
                .hasMessageContaining("sig");
    }

    @Test
    void read_duplicateField_isRefused() {
        String duplicated = EventText.write(EVENT).replace("\"kind\":9", "\"kind\":9,\"kind\":1");

        assertThatThrownBy(() -> EventText.read(duplicated)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void read_numberAsString_isRefused() {
        String wrongType = EventText.write(EVENT).replace("\"kind\":9", "\"kind\":\"9\"");

        assertThatThrownBy(() -> EventText.read(wrongType))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("kind");
    }
}

package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RelayMessageTest {
    private static final String ID = "86dfc35469de4f65c629ba0e990a7d56ddd4ba116531f9ae55d945284359d8b3";

    @Test
    void relayWords_overTheLimit_areCutSayingHowMuch_andShortOnesAreKept() {
        String flood = "blocked: " + "x".repeat(300_000);

        RelayMessage.Notice notice = new RelayMessage.Notice(flood);
        RelayMessage.Ok ok = new RelayMessage.Ok(ID, false, flood);
        RelayMessage.Closed closed = new RelayMessage.Closed("sub", "short words");

        assertThat(notice.message()).hasSize(RelayMessage.MAX_WORDS + " (299497 more characters)".length() + 1)
                .startsWith("blocked: xxx").endsWith("… (299497 more characters)");
        assertThat(ok.message()).isEqualTo(notice.message());
        assertThat(ok.toPublishResult()).isInstanceOf(PublishResult.Rejected.class);
        assertThat(closed.message()).isEqualTo("short words");
    }

    @Test
    void parse_okTrueWithoutMessage_isPublishedNotDuplicate() {
        RelayMessage message = RelayMessage.parse("[\"OK\",\"" + ID + "\",true,\"\"]");

        assertThat(message).isEqualTo(new RelayMessage.Ok(ID, true, ""));
        assertThat(((RelayMessage.Ok) message).toPublishResult()).isEqualTo(new PublishResult.Published(false, ""));
    }

    @Test
    void parse_okWithThreeElements_hasEmptyMessage() {
        assertThat(RelayMessage.parse("[\"OK\",\"" + ID + "\",true]")).isEqualTo(new RelayMessage.Ok(ID, true, ""));
    }

    @Test
    void classify_okTrueDuplicate_isPublishedDuplicate() {
        RelayMessage.Ok ok = new RelayMessage.Ok(ID, true, "duplicate: the event already exists");

        assertThat(ok.toPublishResult())
                .isEqualTo(new PublishResult.Published(true, "duplicate: the event already exists"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "invalid: id is wrong|invalid|id is wrong",
            "pow: difficulty 20 is less than 25|pow|difficulty 20 is less than 25",
            "blocked: you are banned|blocked|you are banned",
            "restricted: not a member of this channel|restricted|not a member of this channel",
            "invalid:|invalid|''",
    })
    void classify_permanentPrefix_isRejectedWithPrefixAndText(String message, String prefix, String text) {
        assertThat(new RelayMessage.Ok(ID, false, message).toPublishResult())
                .isEqualTo(new PublishResult.Rejected(prefix, text));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "rate-limited: slow down",
            "error: could not connect to the database",
            "mute: no one was listening",
            "something went wrong",
            "Invalid: uppercase is not a NIP-01 prefix",
            "auth-required: we only accept events from registered users",
    })
    void classify_otherRefusal_isTransientWithTheRelaysMessage(String message) {
        assertThat(new RelayMessage.Ok(ID, false, message).toPublishResult())
                .isEqualTo(new PublishResult.Transient(message));
    }

    @Test
    void toPublishResult_okFalseWithDuplicatePrefix_isPublishedAsADuplicate() {
        RelayMessage.Ok ok = new RelayMessage.Ok(ID, false, "duplicate: already have this event");

        assertThat(ok.toPublishResult())
                .isEqualTo(new PublishResult.Published(true, "duplicate: already have this event"));
    }

    @Test
    void classify_refusalWithoutMessage_isTransientUnknown() {
        assertThat(new RelayMessage.Ok(ID, false, "").toPublishResult())
                .isEqualTo(new PublishResult.Transient("unknown: OK false without a message"));
    }

    @Test
    void authRequired_onlyForRefusalWithThatPrefix() {
        assertThat(new RelayMessage.Ok(ID, false, "auth-required: please AUTH").authRequired()).isTrue();
        assertThat(new RelayMessage.Ok(ID, true, "auth-required: odd but accepted").authRequired()).isFalse();
        assertThat(new RelayMessage.Ok(ID, false, "restricted: auth-required: no").authRequired()).isFalse();
    }

    @Test
    void parse_authNoticeAndOthers_areTyped() {
        assertThat(RelayMessage.parse("[\"AUTH\",\"challenge-1\"]")).isEqualTo(new RelayMessage.Auth("challenge-1"));
        assertThat(RelayMessage.parse("[\"NOTICE\",\"hello\"]")).isEqualTo(new RelayMessage.Notice("hello"));
        assertThat(RelayMessage.parse("[\"EOSE\",\"sub\"]")).isEqualTo(new RelayMessage.EndOfStoredEvents("sub"));
        assertThat(RelayMessage.parse("[\"CLOSED\",\"sub\",\"auth-required: first\"]"))
                .isEqualTo(new RelayMessage.Closed("sub", "auth-required: first"));
        assertThat(RelayMessage.parse("[\"COUNT\",\"sub\",{\"count\":1}]")).isEqualTo(new RelayMessage.Other("COUNT"));
    }

    @Test
    void parse_eventWithAWellFormedEvent_isDecodedWithItsSubscription() {
        NostrEvent event = VectorEvents.valid().values().iterator().next();

        RelayMessage message = RelayMessage.parse("[\"EVENT\",\"sub-1\"," + NostrEventJson.write(event) + "]");

        assertThat(message).isEqualTo(new RelayMessage.Event("sub-1", new NostrEventJson.Decoded.Event(event)));
        assertThat(((RelayMessage.Event) message).eventId()).isEqualTo(event.id().hex());
    }

    @Test
    void parse_eventWithAMalformedEvent_isAnEventSayingWhyWithoutAnId() {
        RelayMessage message = RelayMessage.parse("[\"EVENT\",\"sub\",{\"id\":\"ab\"}]");

        assertThat(message).isInstanceOfSatisfying(RelayMessage.Event.class, read -> {
            assertThat(read.subscription()).isEqualTo("sub");
            assertThat(read.event()).isInstanceOf(NostrEventJson.Decoded.Malformed.class);
            assertThat(read.eventId()).isEmpty();
        });
    }

    @Test
    void parse_eventWithADuplicateKey_isMalformedThoughJacksonWouldFoldIt() {
        NostrEvent event = VectorEvents.valid().values().iterator().next();
        String json = NostrEventJson.write(event);
        String doubled = json.substring(0, json.length() - 1) + ",\"kind\":" + event.kind() + "}";

        RelayMessage message = RelayMessage.parse("[\"EVENT\",\"sub\"," + doubled + "]");

        assertThat(((RelayMessage.Event) message).event()).isInstanceOf(NostrEventJson.Decoded.Malformed.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "[\"EVENT\",\"sub\"]|EVENT must be [\"EVENT\", <subscription id>, <event>]",
            "[\"EVENT\",7,{}]|EVENT must be [\"EVENT\", <subscription id>, <event>]",
            "[\"EVENT\",\"sub\",\"not an object\"]|EVENT must be [\"EVENT\", <subscription id>, <event>]",
            "[\"EOSE\"]|EOSE must be [\"EOSE\", <subscription id>]",
            "[\"EOSE\",1]|EOSE must be [\"EOSE\", <subscription id>]",
            "[\"CLOSED\"]|CLOSED must be [\"CLOSED\", <subscription id>, <message>]",
            "[\"OK\",\"id\"]|OK must be [\"OK\", <id>, <bool>, <message>]",
            "[\"OK\",\"id\",true,5]|OK must be [\"OK\", <id>, <bool>, <message>]",
            "[\"AUTH\",{}]|AUTH must be [\"AUTH\", <challenge string>]",
            "[]|relay message is not an array starting with its type",
            "[1,\"sub\"]|relay message is not an array starting with its type",
    })
    void parse_knownTypeWithTheWrongShape_failsNamingTheShape(String text, String message) {
        assertThatThrownBy(() -> RelayMessage.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void parse_noticeAndClosedWithoutMessage_haveAnEmptyMessage() {
        assertThat(RelayMessage.parse("[\"NOTICE\"]")).isEqualTo(new RelayMessage.Notice(""));
        assertThat(RelayMessage.parse("[\"CLOSED\",\"sub\"]")).isEqualTo(new RelayMessage.Closed("sub", ""));
    }

    @Test
    void parse_notJson_failsSayingSo() {
        assertThatThrownBy(() -> RelayMessage.parse("OK then"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("relay message is not JSON");
    }

    @Test
    void parse_notAnArray_failsSayingSo() {
        assertThatThrownBy(() -> RelayMessage.parse("{\"OK\":true}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("relay message is not an array starting with its type");
    }

    @Test
    void parse_okWithStringBoolean_failsNamingTheShape() {
        assertThatThrownBy(() -> RelayMessage.parse("[\"OK\",\"" + ID + "\",\"true\",\"\"]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("OK must be [\"OK\", <id>, <bool>, <message>]");
    }

    @Test
    void parse_authWithoutChallenge_failsNamingTheShape() {
        assertThatThrownBy(() -> RelayMessage.parse("[\"AUTH\"]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("AUTH must be [\"AUTH\", <challenge string>]");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "[\"OK\",\"%s\",true,\"\"]", "[\"OK\",\"%s\",false,\"blocked: not on the list\"]",
        "[\"OK\",\"%s\",true]", "[\"OK\",\"%s\",true,\"duplicate: é ✓ ok\"]",
        "[\"OK\",\"%s\",false,\"error: \\\"quoted\\\"\"]", "[\"OK\",\"%s\",false,\"a\\nb\"]",
        "[\"OK\", \"%s\", true, \"\"]", "[\"OK\",\"%s\",true,\"x\",\"extra\"]", "[\"OK\",\"%s\",true,\"\"] ",
        "[\"OK\",\"%s\",TRUE,\"\"]", "[\"OK\",\"%s\",true,\"unterminated]", "[\"OK\",\"%s\",true,\"\"",
        "[\"OK\",\"%s\",1,\"\"]", "[\"OK\",\"\\u0061%s\",true,\"\"]", "[\"OK\",\"%s\",true,]"})
    void parse_okInAnyForm_readsAsTheJsonTreeDoes(String form) {
        String text = form.formatted(ID);

        Object fast = outcome(() -> RelayMessage.parse(text));
        Object tree = outcome(() -> RelayMessage.parseTree(text));

        assertThat(fast).isEqualTo(tree);
    }

    @Test
    void compactOk_readsOnlyTheCompactEscapeFreeForm() {
        assertThat(RelayMessage.compactOk("[\"OK\",\"" + ID + "\",false,\"rate-limited: slow down\"]"))
                .isEqualTo(new RelayMessage.Ok(ID, false, "rate-limited: slow down"));
        assertThat(RelayMessage.compactOk("[\"OK\",\"" + ID + "\",true]")).isEqualTo(new RelayMessage.Ok(ID, true, ""));
        assertThat(RelayMessage.compactOk("[\"OK\", \"" + ID + "\",true]")).isNull();
        assertThat(RelayMessage.compactOk("[\"OK\",\"" + ID + "\",true,\"a\\\"b\"]")).isNull();
        assertThat(RelayMessage.compactOk("[\"NOTICE\",\"x\"]")).isNull();
    }

    /** What reading gives: the message, or the failure's type and text. */
    private static Object outcome(java.util.function.Supplier<RelayMessage> read) {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            return "refused: " + e.getMessage();
        }
    }
}

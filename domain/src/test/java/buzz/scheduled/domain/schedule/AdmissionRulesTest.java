package buzz.scheduled.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.AdmissionRules.Timing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Admission (docs/openapi.yaml), the rules that need no I/O: each refusal, its boundaries, and which refusal wins. */
class AdmissionRulesTest {

    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);
    private static final Duration HORIZON = Duration.ofDays(120);
    private static final AdmissionRules RULES = new AdmissionRules(
            AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, HORIZON);

    private static EventFixture inAnHour() {
        return EventFixture.event().createdAt(NOW.getEpochSecond() + 3600);
    }

    private static AdmissionVerdict check(NostrEvent event) {
        return RULES.check(event, EventFixture.OWNER, Timing.FUTURE, NOW);
    }

    private static Refusal refusal(AdmissionVerdict verdict) {
        assertThat(verdict).isInstanceOf(AdmissionVerdict.Refused.class);
        return ((AdmissionVerdict.Refused) verdict).refusal();
    }

    private static Admission admission(AdmissionVerdict verdict) {
        assertThat(verdict).isInstanceOf(AdmissionVerdict.Admitted.class);
        return ((AdmissionVerdict.Admitted) verdict).admission();
    }

    @Test
    void check_validEvent_isAdmittedDueAtCreatedAtInItsChannel() {
        NostrEvent event = inAnHour().build();

        Admission admission = admission(check(event));

        assertThat(admission).isEqualTo(new Admission(event, new Channel(EventFixture.CHANNEL),
                NOW.plusSeconds(3600)));
    }

    @Test
    void check_eventOfAnotherPubkey_isPubkeyMismatchNamingBoth() {
        Refusal refusal = refusal(RULES.check(inAnHour().build(), EventFixture.STRANGER, Timing.FUTURE, NOW));

        assertThat(refusal.code()).isEqualTo(RefusalCode.PUBKEY_MISMATCH);
        assertThat(refusal.message()).contains(EventFixture.OWNER.hex()).contains(EventFixture.STRANGER.hex());
    }

    @ParameterizedTest
    @ValueSource(ints = {9, 40002, 40008, 45001, 45003, 1})
    void check_defaultKind_isAdmitted(int kind) {
        assertThat(check(inAnHour().kind(kind).build())).isInstanceOf(AdmissionVerdict.Admitted.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 7, 10, 1059, 30023, 65535})
    void check_otherKind_isKindNotAllowedNamingIt(int kind) {
        Refusal refusal = refusal(check(inAnHour().kind(kind).build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.KIND_NOT_ALLOWED);
        assertThat(refusal.message()).contains("kind " + kind).contains("[1, 9, 40002, 40008, 45001, 45003]");
    }

    @Test
    void check_configuredKinds_replaceTheDefaults() {
        AdmissionRules onlyNotes = new AdmissionRules(Set.of(1), 1024, HORIZON);

        assertThat(onlyNotes.check(inAnHour().kind(1).build(), EventFixture.OWNER, Timing.FUTURE, NOW))
                .isInstanceOf(AdmissionVerdict.Admitted.class);
        assertThat(refusal(onlyNotes.check(inAnHour().kind(9).build(), EventFixture.OWNER, Timing.FUTURE, NOW))
                .code()).isEqualTo(RefusalCode.KIND_NOT_ALLOWED);
    }

    @Test
    void check_noChannelTag_isMissingChannel() {
        Refusal refusal = refusal(check(inAnHour().noChannel().build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.MISSING_CHANNEL);
        assertThat(refusal.message()).contains("has 0");
    }

    @Test
    void check_twoChannelTags_isMissingChannel() {
        Refusal refusal = refusal(check(inAnHour().tag("h", "random").build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.MISSING_CHANNEL);
        assertThat(refusal.message()).contains("has 2");
    }

    @Test
    void check_twoIdenticalChannelTags_isMissingChannel() {
        Refusal refusal = refusal(check(inAnHour().tag("h", EventFixture.CHANNEL).build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.MISSING_CHANNEL);
    }

    @Test
    void check_channelTagWithoutValue_isMissingChannel() {
        Refusal refusal = refusal(check(inAnHour().noChannel().tag("h").build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.MISSING_CHANNEL);
        assertThat(refusal.message()).contains("empty");
    }

    @Test
    void check_channelLongerThanTheLimit_isMissingChannel() {
        Refusal refusal = refusal(check(inAnHour().channel("c".repeat(Channel.MAX_LENGTH + 1)).build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.MISSING_CHANNEL);
        assertThat(refusal.message()).contains(String.valueOf(Channel.MAX_LENGTH));
    }

    @Test
    void check_channelWithNulCharacter_isMissingChannel() {
        Refusal refusal = refusal(check(inAnHour().channel("gen\u0000eral").build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.MISSING_CHANNEL);
        assertThat(refusal.message()).contains("control characters");
    }

    @Test
    void check_channelOfExactlyTheLimit_isAdmitted() {
        String longest = "c".repeat(Channel.MAX_LENGTH);

        assertThat(admission(check(inAnHour().channel(longest).build())).channel()).isEqualTo(new Channel(longest));
    }

    @Test
    void check_otherTagsBesideTheChannel_areAdmitted() {
        NostrEvent event = inAnHour().tag("p", "c3".repeat(32)).tag("e", "d4".repeat(32), "", "reply").build();

        assertThat(check(event)).isInstanceOf(AdmissionVerdict.Admitted.class);
    }

    @Test
    void check_contentOfExactlyTheLimit_isAdmitted() {
        String content = "a".repeat(AdmissionRules.DEFAULT_MAX_CONTENT_BYTES);

        assertThat(check(inAnHour().content(content).build())).isInstanceOf(AdmissionVerdict.Admitted.class);
    }

    @Test
    void check_contentOneByteOverTheLimit_isTooLargeNamingBothSizes() {
        String content = "a".repeat(AdmissionRules.DEFAULT_MAX_CONTENT_BYTES + 1);

        Refusal refusal = refusal(check(inAnHour().content(content).build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.TOO_LARGE);
        assertThat(refusal.message()).contains("262145 bytes").contains("262144");
    }

    @Test
    void check_multibyteContentAtTheLimitInUtf8Bytes_isAdmitted() {
        // 65 536 emoji: 131 072 UTF-16 chars, 262 144 UTF-8 bytes.
        String content = "\uD83D\uDE00".repeat(65_536);
        assertThat(content.getBytes(StandardCharsets.UTF_8)).hasSize(AdmissionRules.DEFAULT_MAX_CONTENT_BYTES);

        assertThat(check(inAnHour().content(content).build())).isInstanceOf(AdmissionVerdict.Admitted.class);
    }

    @Test
    void check_multibyteContentOverTheLimitInUtf8ButUnderInChars_isTooLarge() {
        // 131 073 chars would fit a char-counting limit; in UTF-8 it is 262 145 bytes.
        String content = "é".repeat(131_072) + "a";
        assertThat(content.length()).isLessThan(AdmissionRules.DEFAULT_MAX_CONTENT_BYTES);

        Refusal refusal = refusal(check(inAnHour().content(content).build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.TOO_LARGE);
        assertThat(refusal.message()).contains("262145 bytes");
    }

    @Test
    void check_threeByteCharacters_areCountedAsThreeBytes() {
        AdmissionRules tiny = new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 9, HORIZON);

        assertThat(tiny.check(inAnHour().content("€€€").build(), EventFixture.OWNER, Timing.FUTURE, NOW))
                .isInstanceOf(AdmissionVerdict.Admitted.class);
        assertThat(refusal(tiny.check(inAnHour().content("€€€a").build(), EventFixture.OWNER, Timing.FUTURE, NOW))
                .code()).isEqualTo(RefusalCode.TOO_LARGE);
    }

    @Test
    void check_moreTagsThanTheLimit_isTooLargeNamingTheLimit() {
        AdmissionRules fewTags = new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 1024, HORIZON, 64 * 1024, 3);
        EventFixture threeTags = inAnHour().tag("t", "a").tag("t", "b"); // with the h tag: three
        EventFixture fourTags = inAnHour().tag("t", "a").tag("t", "b").tag("t", "c");

        assertThat(fewTags.check(threeTags.build(), EventFixture.OWNER, Timing.FUTURE, NOW))
                .isInstanceOf(AdmissionVerdict.Admitted.class);
        Refusal refusal = refusal(fewTags.check(fourTags.build(), EventFixture.OWNER, Timing.FUTURE, NOW));
        assertThat(refusal.code()).isEqualTo(RefusalCode.TOO_LARGE);
        assertThat(refusal.message()).contains("4 tags").contains("limit is 3 tags");
    }

    @Test
    void check_nip70ProtectedTag_isProtectedEventSayingWhy() {
        Refusal refusal = refusal(check(inAnHour().tag("-").build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.PROTECTED_EVENT);
        assertThat(refusal.message()).contains("NIP-70").contains("[\"-\"]").contains("only from its author");
    }

    @Test
    void check_tagNamedDashWithAValue_isProtectedToo_whileADashValueIsNot() {
        assertThat(refusal(check(inAnHour().tag("-", "x").build())).code()).isEqualTo(RefusalCode.PROTECTED_EVENT);
        assertThat(check(inAnHour().tag("t", "-").build())).isInstanceOf(AdmissionVerdict.Admitted.class);
    }

    @Test
    void check_wholeEventOverTheLimitThroughTags_isTooLargeThoughTheContentIsSmall() {
        NostrEvent small = inAnHour().content("hi").build();
        int bytes = NostrEventJson.write(small).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        AdmissionRules exact = new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 1024, HORIZON, bytes, 1000);

        assertThat(exact.check(small, EventFixture.OWNER, Timing.FUTURE, NOW))
                .isInstanceOf(AdmissionVerdict.Admitted.class);
        NostrEvent tagged = inAnHour().content("hi").tag("t", "x").build();
        Refusal refusal = refusal(exact.check(tagged, EventFixture.OWNER, Timing.FUTURE, NOW));
        assertThat(refusal.code()).isEqualTo(RefusalCode.TOO_LARGE);
        assertThat(refusal.message()).contains("the limit is " + bytes + " bytes");
    }

    @Test
    void defaults_wholeEventAboveTheContentLimit_andATagLimit() {
        assertThat(RULES.maxEventBytes()).isEqualTo(AdmissionRules.DEFAULT_MAX_EVENT_BYTES)
                .isGreaterThan(AdmissionRules.DEFAULT_MAX_CONTENT_BYTES);
        assertThat(RULES.maxEventTags()).isEqualTo(1000);
        assertThatThrownBy(() -> new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 10, HORIZON, 0, 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 10, HORIZON, 10, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void check_expirationAtTheDueTime_isExpiresBeforeDue() {
        long due = NOW.getEpochSecond() + 3600;

        Refusal refusal = refusal(check(inAnHour().tag("expiration", String.valueOf(due)).build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.EXPIRES_BEFORE_DUE);
        assertThat(refusal.message()).contains(String.valueOf(due));
    }

    @Test
    void check_expirationBeforeTheDueTime_isExpiresBeforeDue() {
        long due = NOW.getEpochSecond() + 3600;

        assertThat(refusal(check(inAnHour().tag("expiration", String.valueOf(due - 1)).build())).code())
                .isEqualTo(RefusalCode.EXPIRES_BEFORE_DUE);
    }

    @Test
    void check_expirationOneSecondAfterTheDueTime_isAdmitted() {
        long due = NOW.getEpochSecond() + 3600;

        assertThat(check(inAnHour().tag("expiration", String.valueOf(due + 1)).build()))
                .isInstanceOf(AdmissionVerdict.Admitted.class);
    }

    @Test
    void check_anyOfSeveralExpirationsAtTheDueTime_isExpiresBeforeDue() {
        long due = NOW.getEpochSecond() + 3600;
        NostrEvent event = inAnHour().tag("expiration", String.valueOf(due + 60))
                .tag("expiration", String.valueOf(due)).build();

        assertThat(refusal(check(event)).code()).isEqualTo(RefusalCode.EXPIRES_BEFORE_DUE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tomorrow", "", "1.5e9", "99999999999999999999", "+1796172879", "-1796172879",
        "\u0661\u0667\u0669\u0666\u0661\u0667\u0662\u0668\u0667\u0669", " 1796172879"})
    void check_expirationThatIsNotUnixSeconds_isInvalidEventNamingIt(String expiration) {
        Refusal refusal = refusal(check(inAnHour().tag("expiration", expiration).build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.INVALID_EVENT);
        assertThat(refusal.message()).contains("expiration").endsWith(": " + expiration);
    }

    @Test
    void check_createdAtEqualToNow_isTimeInPast() {
        Refusal refusal = refusal(check(EventFixture.event().createdAt(NOW.getEpochSecond()).build()));

        assertThat(refusal.code()).isEqualTo(RefusalCode.TIME_IN_PAST);
        assertThat(refusal.message()).contains(String.valueOf(NOW.getEpochSecond()));
    }

    @Test
    void check_createdAtOneSecondAfterNow_isAdmitted() {
        NostrEvent event = EventFixture.event().createdAt(NOW.getEpochSecond() + 1).build();

        assertThat(admission(check(event)).dueAt()).isEqualTo(NOW.plusSeconds(1));
    }

    @Test
    void check_createdAtBeforeNow_isTimeInPast() {
        assertThat(refusal(check(EventFixture.event().createdAt(NOW.getEpochSecond() - 1).build())).code())
                .isEqualTo(RefusalCode.TIME_IN_PAST);
    }

    @Test
    void check_createdAtExactlyAtTheHorizon_isAdmitted() {
        NostrEvent event = EventFixture.event().createdAt(NOW.plus(HORIZON).getEpochSecond()).build();

        assertThat(check(event)).isInstanceOf(AdmissionVerdict.Admitted.class);
    }

    @Test
    void check_createdAtOneSecondPastTheHorizon_isTimeTooFarNamingTheHorizon() {
        NostrEvent event = EventFixture.event().createdAt(NOW.plus(HORIZON).getEpochSecond() + 1).build();

        Refusal refusal = refusal(check(event));

        assertThat(refusal.code()).isEqualTo(RefusalCode.TIME_TOO_FAR);
        assertThat(refusal.message()).contains(HORIZON.toDays() + " days ahead");
    }

    @Test
    void check_nowWithinASecond_comparesWholeSeconds() {
        Instant midSecond = NOW.plusMillis(500);

        assertThat(refusal(RULES.check(EventFixture.event().createdAt(NOW.getEpochSecond()).build(),
                EventFixture.OWNER, Timing.FUTURE, midSecond)).code()).isEqualTo(RefusalCode.TIME_IN_PAST);
        assertThat(RULES.check(EventFixture.event().createdAt(NOW.getEpochSecond() + 1).build(),
                EventFixture.OWNER, Timing.FUTURE, midSecond)).isInstanceOf(AdmissionVerdict.Admitted.class);
        assertThat(RULES.check(EventFixture.event().createdAt(NOW.plus(HORIZON).getEpochSecond()).build(),
                EventFixture.OWNER, Timing.FUTURE, midSecond)).isInstanceOf(AdmissionVerdict.Admitted.class);
        assertThat(refusal(RULES.check(EventFixture.event().createdAt(NOW.plus(HORIZON).getEpochSecond() + 1)
                .build(), EventFixture.OWNER, Timing.FUTURE, midSecond)).code()).isEqualTo(RefusalCode.TIME_TOO_FAR);
    }

    @Test
    void check_immediateWithCreatedAtInThePast_isAdmittedDueNow() {
        NostrEvent event = EventFixture.event().createdAt(NOW.getEpochSecond() - 30).build();

        Admission admission = admission(RULES.check(event, EventFixture.OWNER, Timing.IMMEDIATE, NOW));

        assertThat(admission.dueAt()).isEqualTo(NOW);
    }

    @Test
    void check_immediateWithExpirationAtNow_isExpiresBeforeDue() {
        NostrEvent event = EventFixture.event().createdAt(NOW.getEpochSecond() - 30)
                .tag("expiration", String.valueOf(NOW.getEpochSecond())).build();

        assertThat(refusal(RULES.check(event, EventFixture.OWNER, Timing.IMMEDIATE, NOW)).code())
                .isEqualTo(RefusalCode.EXPIRES_BEFORE_DUE);
    }

    @Test
    void check_immediateWithExpirationAfterNow_isAdmitted() {
        // Due now, so an expiration between created_at and a far-future created_at's due time is fine.
        NostrEvent event = EventFixture.event().createdAt(NOW.getEpochSecond() + 600)
                .tag("expiration", String.valueOf(NOW.getEpochSecond() + 1)).build();

        assertThat(RULES.check(event, EventFixture.OWNER, Timing.IMMEDIATE, NOW))
                .isInstanceOf(AdmissionVerdict.Admitted.class);
    }

    // -------------------------------------------------------------------------------------------------------
    // Order: an event breaking two rules gets the earlier rule's code.

    /** A submission under construction: the event and who submits it. */
    private static final class Submission {
        final EventFixture event = inAnHour().content("short");
        PublicKey authenticated = EventFixture.OWNER;
        boolean expiresAtDue;

        AdmissionVerdict check(AdmissionRules rules) {
            if (expiresAtDue) {
                event.tag("expiration", String.valueOf(event.createdAt()));
            }
            return rules.check(event.build(), authenticated, Timing.FUTURE, NOW);
        }
    }

    private record Breach(RefusalCode code, Consumer<Submission> apply) {
        @Override
        public String toString() {
            return code.wireName();
        }
    }

    /** One way to break each rule, in the admission order of docs/openapi.yaml. */
    private static final List<Breach> BREACHES = List.of(
            new Breach(RefusalCode.PUBKEY_MISMATCH, s -> s.authenticated = EventFixture.STRANGER),
            new Breach(RefusalCode.KIND_NOT_ALLOWED, s -> s.event.kind(7)),
            new Breach(RefusalCode.MISSING_CHANNEL, s -> s.event.noChannel()),
            new Breach(RefusalCode.TOO_LARGE, s -> s.event.content("x".repeat(65))),
            new Breach(RefusalCode.EXPIRES_BEFORE_DUE, s -> s.expiresAtDue = true),
            new Breach(RefusalCode.TIME_IN_PAST, s -> s.event.createdAt(NOW.getEpochSecond() - 60)),
            new Breach(RefusalCode.TIME_TOO_FAR, s -> s.event.createdAt(NOW.plus(HORIZON).getEpochSecond() + 60)));

    private static final AdmissionRules SMALL = new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 64, HORIZON);

    static Stream<Arguments> breachPairs() {
        List<Arguments> pairs = new ArrayList<>();
        for (int i = 0; i < BREACHES.size(); i++) {
            for (int j = i + 1; j < BREACHES.size(); j++) {
                Breach earlier = BREACHES.get(i);
                Breach later = BREACHES.get(j);
                boolean bothTimes = earlier.code() == RefusalCode.TIME_IN_PAST
                        && later.code() == RefusalCode.TIME_TOO_FAR;
                if (!bothTimes) {
                    pairs.add(Arguments.of(earlier, later));
                }
            }
        }
        return pairs.stream();
    }

    @ParameterizedTest(name = "{0} before {1}")
    @MethodSource("breachPairs")
    void check_eventBreakingTwoRules_getsTheEarlierRulesCode(Breach earlier, Breach later) {
        Submission alone = new Submission();
        later.apply().accept(alone);
        assertThat(refusal(alone.check(SMALL)).code()).as("the later breach alone").isEqualTo(later.code());

        Submission both = new Submission();
        later.apply().accept(both);
        earlier.apply().accept(both);

        assertThat(refusal(both.check(SMALL)).code()).isEqualTo(earlier.code());
    }

    @Test
    void breaches_coverEveryCodeTheRulesProduceFromTheEvent() {
        Set<RefusalCode> codes = new HashSet<>();
        BREACHES.forEach(b -> codes.add(b.code()));

        assertThat(codes).containsExactlyInAnyOrder(RefusalCode.PUBKEY_MISMATCH, RefusalCode.KIND_NOT_ALLOWED,
                RefusalCode.MISSING_CHANNEL, RefusalCode.TOO_LARGE, RefusalCode.EXPIRES_BEFORE_DUE,
                RefusalCode.TIME_IN_PAST, RefusalCode.TIME_TOO_FAR);
    }

    @Test
    void check_eventBreakingEveryRule_isPubkeyMismatch() {
        Submission all = new Submission();
        BREACHES.stream().filter(b -> b.code() != RefusalCode.TIME_TOO_FAR).forEach(b -> b.apply().accept(all));

        assertThat(refusal(all.check(SMALL)).code()).isEqualTo(RefusalCode.PUBKEY_MISMATCH);
    }

    // -------------------------------------------------------------------------------------------------------
    // Configuration

    @Test
    void construct_withoutKinds_isRejected() {
        assertThatThrownBy(() -> new AdmissionRules(Set.of(), 10, HORIZON))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind");
        assertThatThrownBy(() -> new AdmissionRules(null, 10, HORIZON))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1})
    void construct_withContentLimitBelowOne_namesTheValue(int limit) {
        assertThatThrownBy(() -> new AdmissionRules(AdmissionRules.DEFAULT_KINDS, limit, HORIZON))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got " + limit);
    }

    @Test
    void construct_withHorizonNotPositive_namesTheValue() {
        assertThatThrownBy(() -> new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 10, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got PT0S");
        assertThatThrownBy(() -> new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 10, Duration.ofDays(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got PT-24H");
        assertThatThrownBy(() -> new AdmissionRules(AdmissionRules.DEFAULT_KINDS, 10, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got null");
    }

    @Test
    void construct_kindSetChangedAfterwards_doesNotChangeTheRules() {
        Set<Integer> kinds = new HashSet<>(Set.of(9));
        AdmissionRules rules = new AdmissionRules(kinds, 10, HORIZON);

        kinds.add(7);

        assertThat(rules.allowedKinds()).containsExactly(9);
    }

    @Test
    void defaults_matchTheSpec() {
        assertThat(AdmissionRules.DEFAULT_KINDS).containsExactlyInAnyOrder(9, 40002, 40008, 45001, 45003, 1);
        assertThat(AdmissionRules.DEFAULT_MAX_CONTENT_BYTES).isEqualTo(262_144);
    }
}

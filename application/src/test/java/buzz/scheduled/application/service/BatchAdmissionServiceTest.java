package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.FakeOwnerWriteLimiter;
import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.ScheduleBatchUseCase.BatchItem;
import buzz.scheduled.application.port.in.ScheduleBatchUseCase.BatchResult;
import buzz.scheduled.application.port.in.ScheduleBatchUseCase.ScheduleBatchCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A batch at the service: each item goes through the single create's admission (the same refusals, in the same
 * order), the owner's rate is taken for all items at once, the access policy is asked once per channel and kind, the
 * dispatcher hears the earliest new due time once, and a series batch answers its series.
 */
class BatchAdmissionServiceTest {
    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);
    private static final PublicKey ALICE = TestEvents.ALICE;

    private final SettableClock clock = new SettableClock(NOW);
    private final InMemoryOwnerMessages store = new InMemoryOwnerMessages(clock);
    private final FakeOwnerWriteLimiter writes = new FakeOwnerWriteLimiter();
    private final FakeEventSignatures signatures = new FakeEventSignatures();
    private final List<String> accessQuestions = new ArrayList<>();
    private final List<Instant> dueNotices = new ArrayList<>();
    private final AccessPolicy access = (owner, channel, kind) -> {
        accessQuestions.add(channel.value() + "/" + kind);
        return channel.value().equals("private")
                ? new AccessPolicy.AccessDecision.Denied(RefusalCode.NOT_IN_CHANNEL, "not a member of private")
                : new AccessPolicy.AccessDecision.Allowed();
    };
    private final OwnerMessagesService service = serviceCheckingWith(signatures);

    /** The service over this test's store, access policy, clock and write limiter, checking signatures with {@code checker}. */
    private OwnerMessagesService serviceCheckingWith(EventSignatures checker) {
        return new OwnerMessagesService(store, store, store, checker, access, new SequentialScheduleIds(), clock,
                dueNotices::add, new SchedulingSettings(new AdmissionRules(AdmissionRules.DEFAULT_KINDS,
                        AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, Duration.ofDays(120)),
                        new CreateLimits(100, 30, 300, Duration.ofMinutes(5), 1), Duration.ofSeconds(900)),
                RelayLimits.UNKNOWN, writes);
    }

    private static BatchItem signed(NostrEvent event) {
        return new BatchItem.Signed(event, Optional.empty());
    }

    private static NostrEvent in(long seconds, String channel) {
        return TestEvents.at(NOW.getEpochSecond() + seconds).channel(channel).content("at " + seconds).build();
    }

    private BatchResult.Answered answered(BatchResult result) {
        assertThat(result).isInstanceOf(BatchResult.Answered.class);
        return (BatchResult.Answered) result;
    }

    @Test
    void batch_eachItem_isRefusedExactlyAsTheSameSingleCreateIs() {
        NostrEvent forged = in(3600, "general");
        signatures.markInvalid(forged.id(), "bad signature");
        List<NostrEvent> events = List.of(forged, TestEvents.at(NOW.getEpochSecond() + 60).by(TestEvents.BOB).build(),
                TestEvents.at(NOW.getEpochSecond() + 60).kind(7).build(), in(-1, "general"), in(3600, "private"),
                TestEvents.at(NOW.getEpochSecond() + 60).tag("expiration", "5").build());
        List<ScheduleResult> singles = new ArrayList<>();
        InMemoryOwnerMessages other = new InMemoryOwnerMessages(clock);
        OwnerMessagesService alone = new OwnerMessagesService(other, other, other, signatures, access,
                new SequentialScheduleIds(), clock, dueNotices::add, new SchedulingSettings(new AdmissionRules(
                        AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, Duration.ofDays(120)),
                        new CreateLimits(100, 30, 300, Duration.ofMinutes(5), 1), Duration.ofSeconds(900)));
        for (NostrEvent event : events) {
            singles.add(alone.schedule(new ScheduleMessageCommand(ALICE, event, Optional.empty())));
        }

        BatchResult.Answered batch = answered(service.scheduleBatch(new ScheduleBatchCommand(ALICE,
                events.stream().map(BatchAdmissionServiceTest::signed).toList(), false)));

        assertThat(batch.results()).isEqualTo(singles);
        assertThat(batch.results()).extracting(result -> ((ScheduleResult.Refused) result).refusal().code())
                .containsExactly(RefusalCode.INVALID_EVENT, RefusalCode.PUBKEY_MISMATCH, RefusalCode.KIND_NOT_ALLOWED,
                        RefusalCode.TIME_IN_PAST, RefusalCode.NOT_IN_CHANNEL, RefusalCode.EXPIRES_BEFORE_DUE);
        assertThat(store.size()).isZero();
    }

    @Test
    void batch_malformedForgedAndValidItems_signaturesCheckedInOneCall_eachVerdictOnItsOwnItem() {
        NostrEvent forged = in(3600, "general");
        signatures.markInvalid(forged.id(), "signature does not verify (test)");
        NostrEvent valid = in(3700, "general");
        List<List<NostrEvent>> calls = new ArrayList<>();
        EventSignatures recording = new EventSignatures() {
            @Override
            public Verdict verify(NostrEvent event) {
                throw new AssertionError("a batch checks its signatures with verifyAll");
            }

            @Override
            public List<Verdict> verifyAll(List<NostrEvent> events) {
                calls.add(events);
                return events.stream().map(signatures::verify).toList();
            }
        };
        OwnerMessagesService batching = serviceCheckingWith(recording);

        BatchResult.Answered batch = answered(batching.scheduleBatch(new ScheduleBatchCommand(ALICE, List.of(
                new BatchItem.Malformed("\"sig\" is missing"), signed(forged), signed(valid)), false)));

        assertThat(calls).containsExactly(List.of(forged, valid));
        assertThat(((ScheduleResult.Refused) batch.results().get(0)).refusal().code())
                .isEqualTo(RefusalCode.INVALID_EVENT);
        assertThat(((ScheduleResult.Refused) batch.results().get(1)).refusal())
                .satisfies(refusal -> assertThat(refusal.code()).isEqualTo(RefusalCode.INVALID_EVENT))
                .satisfies(refusal -> assertThat(refusal.message()).contains("signature does not verify (test)"));
        assertThat(batch.results().get(2)).isInstanceOfSatisfying(ScheduleResult.Created.class,
                created -> assertThat(created.message().eventId()).isEqualTo(valid.id()));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void batch_signatureCheckAnsweringForTooFewEvents_isAnErrorNotAnAdmission() {
        EventSignatures shortAnswers = new EventSignatures() {
            @Override
            public Verdict verify(NostrEvent event) {
                return new Verdict.Valid();
            }

            @Override
            public List<Verdict> verifyAll(List<NostrEvent> events) {
                return List.of(new Verdict.Valid());
            }
        };
        OwnerMessagesService broken = serviceCheckingWith(shortAnswers);

        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(() -> broken.scheduleBatch(
                new ScheduleBatchCommand(ALICE, List.of(signed(in(3600, "general")), signed(in(3700, "general"))),
                        false))).withMessageContaining("answered 1 of 2");
        assertThat(store.size()).isZero();
    }

    @Test
    void batch_manyItemsInFewChannels_asksTheAccessPolicyOncePerChannelAndKind() {
        List<BatchItem> items = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            items.add(signed(in(3600 + i, i % 2 == 0 ? "general" : "ops")));
        }

        answered(service.scheduleBatch(new ScheduleBatchCommand(ALICE, items, false)));

        assertThat(accessQuestions).containsExactlyInAnyOrder("general/9", "ops/9");
        assertThat(store.size()).isEqualTo(10);
    }

    @Test
    void batch_created_tellsTheDispatcherTheEarliestNewDueTimeOnce() {
        answered(service.scheduleBatch(new ScheduleBatchCommand(ALICE, List.of(signed(in(7200, "general")),
                signed(in(600, "general")), signed(in(3600, "general"))), false)));

        assertThat(dueNotices).containsExactly(NOW.plusSeconds(600));
    }

    @Test
    void batch_takesOneWritePerItemIncludingMalformedOnes_andNothingWhenRefused() {
        writes.allow(ALICE, 3, Duration.ofSeconds(4));
        List<BatchItem> four = List.of(signed(in(600, "general")), new BatchItem.Malformed("not an object"),
                signed(in(700, "general")), signed(in(800, "general")));

        BatchResult refused = service.scheduleBatch(new ScheduleBatchCommand(ALICE, four, false));
        BatchResult.Answered three = answered(service.scheduleBatch(new ScheduleBatchCommand(ALICE,
                four.subList(0, 3), false)));

        assertThat(refused).isEqualTo(new BatchResult.RateLimited(Duration.ofSeconds(4), ((BatchResult.RateLimited)
                refused).message()));
        assertThat(((BatchResult.RateLimited) refused).message()).contains("a batch of 4 events takes 4 writes");
        assertThat(three.results()).hasSize(3);
        assertThat(three.results().get(1)).isInstanceOfSatisfying(ScheduleResult.Refused.class, malformed ->
                assertThat(malformed.refusal().code()).isEqualTo(RefusalCode.INVALID_EVENT));
        assertThat(store.size()).isEqualTo(2);
        assertThat(writes.asked(ALICE)).isEqualTo(7);
    }

    @Test
    void seriesBatch_createdItemsShareOneSeries_andARetryAnswersItAgain() {
        List<BatchItem> items = List.of(signed(in(600, "general")), signed(in(604_800, "general")),
                signed(in(-5, "general")));

        BatchResult.Answered first = answered(service.scheduleBatch(new ScheduleBatchCommand(ALICE, items, true)));
        BatchResult.Answered retry = answered(service.scheduleBatch(new ScheduleBatchCommand(ALICE, items, true)));
        BatchResult.Answered plain = answered(service.scheduleBatch(new ScheduleBatchCommand(ALICE,
                List.of(signed(in(900, "general"))), false)));

        SeriesId series = first.series().orElseThrow();
        assertThat(first.results().subList(0, 2)).allSatisfy(result -> assertThat(result)
                .isInstanceOfSatisfying(ScheduleResult.Created.class, created ->
                        assertThat(created.message().series()).contains(series)));
        assertThat(retry.results().subList(0, 2)).allSatisfy(result ->
                assertThat(result).isInstanceOf(ScheduleResult.Replayed.class));
        assertThat(retry.series()).contains(series);
        assertThat(plain.series()).isEmpty();
        assertThat(store.rows()).filteredOn(m -> m.series().isPresent()).extracting(ScheduledMessage::channel)
                .containsExactly(new Channel("general"), new Channel("general"));
        assertThat(service.seriesSummary(ALICE, series).orElseThrow().pending()).isEqualTo(2);
    }
}

package buzz.scheduled.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.InMemoryJobRequests;
import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
import buzz.scheduled.application.fakes.ScriptedAccessPolicy;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.in.JobRequestUseCase.DeletionOutcome;
import buzz.scheduled.application.port.in.JobRequestUseCase.Input;
import buzz.scheduled.application.port.in.JobRequestUseCase.JobOutcome;
import buzz.scheduled.application.port.in.JobRequestUseCase.JobRequestCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.JobAnswers;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.NostrDelivery;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.StateName;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The kind-5905 front door with the real owner service on in-memory stores. */
class JobRequestServiceTest {
    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);

    private final SettableClock clock = new SettableClock(NOW);
    private final InMemoryOwnerMessages store = new InMemoryOwnerMessages(clock);
    private final OwnerMessagesService owners = new OwnerMessagesService(store, store, store,
            new FakeEventSignatures(), new ScriptedAccessPolicy(), new SequentialScheduleIds(), clock, due -> { },
            new SchedulingSettings(new AdmissionRules(AdmissionRules.DEFAULT_KINDS,
                    AdmissionRules.DEFAULT_MAX_CONTENT_BYTES, Duration.ofDays(120)),
                    new MessageAdmission.CreateLimits(2, 30, Duration.ofMinutes(5)), Duration.ofSeconds(900)));
    private final InMemoryJobRequests requests = new InMemoryJobRequests(clock);
    private final RecordingAnswers answers = new RecordingAnswers();
    private final JobRequestService service = new JobRequestService(owners, owners, requests, answers);
    private int nextRequest = 1;

    /** What was answered, in order. */
    record Answer(JobAnswers.Job job, String kind, String status, String info, Optional<String> scheduleId) {
    }

    static final class RecordingAnswers implements JobAnswers {
        final List<Answer> answers = new CopyOnWriteArrayList<>();
        volatile boolean relayDown;

        @Override
        public NostrDelivery feedback(Job job, Status status, String info, Optional<String> scheduleId) {
            answers.add(new Answer(job, "7000", status.wireName(), info, scheduleId));
            return relayDown ? new NostrDelivery.Undelivered("down") : new NostrDelivery.Delivered(job.requestId());
        }

        @Override
        public NostrDelivery result(Job job, EventId published) {
            answers.add(new Answer(job, "6905", "", published.hex(), Optional.empty()));
            return relayDown ? new NostrDelivery.Undelivered("down") : new NostrDelivery.Delivered(published);
        }
    }

    private EventId requestId() {
        return new EventId(String.format("%064x", nextRequest++));
    }

    private JobRequestCommand request(EventId id, PublicKey requester, NostrEvent event) {
        return new JobRequestCommand(id, requester, true, new Input.Tags(List.of(
                List.of("i", NostrEventJson.write(event), "text"), List.of("relays", "wss://relay.example"))));
    }

    private NostrEvent inAnHour(String content) {
        return TestEvents.at(NOW.getEpochSecond() + 3600).content(content).build();
    }

    @Test
    void handle_validRequest_admitsTheEventAsItsAuthorAndAnswersSuccessWithTheId() {
        NostrEvent event = inAnHour("hello");
        EventId id = requestId();

        JobOutcome outcome = service.handle(request(id, TestEvents.ALICE, event));

        assertThat(outcome).isInstanceOfSatisfying(JobOutcome.Admitted.class, admitted -> {
            assertThat(store.find(admitted.message()).orElseThrow().owner()).isEqualTo(TestEvents.ALICE);
            assertThat(answers.answers).singleElement().satisfies(answer -> {
                assertThat(answer.status()).isEqualTo("success");
                assertThat(answer.scheduleId()).contains(admitted.message().toString());
                assertThat(answer.job()).isEqualTo(new JobAnswers.Job(id, TestEvents.ALICE, true));
            });
        });
    }

    @Test
    void handle_sameRequestAgain_isNotHandledTwice() {
        EventId id = requestId();
        service.handle(request(id, TestEvents.ALICE, inAnHour("once")));

        JobOutcome again = service.handle(request(id, TestEvents.ALICE, inAnHour("once")));

        assertThat(again).isInstanceOf(JobOutcome.AlreadyHandled.class);
        assertThat(store.size()).isEqualTo(1);
        assertThat(answers.answers).hasSize(1);
    }

    @Test
    void handle_sameEventInAnotherRequest_isTheSameOneMessage() {
        NostrEvent event = inAnHour("twice");
        JobOutcome first = service.handle(request(requestId(), TestEvents.ALICE, event));

        JobOutcome second = service.handle(request(requestId(), TestEvents.ALICE, event));

        assertThat(second).isEqualTo(new JobOutcome.Admitted(((JobOutcome.Admitted) first).message(), true));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void handle_requestFromAnotherKeyThanTheAuthor_isRefusedWithTheApisPubkeyMismatch() {
        NostrEvent event = inAnHour("not mine");
        ScheduleResult http = owners.schedule(new ScheduleMessageCommand(TestEvents.BOB, event, Optional.empty()));

        JobOutcome outcome = service.handle(request(requestId(), TestEvents.BOB, event));

        ScheduleResult.Refused refused = (ScheduleResult.Refused) http;
        assertThat(outcome).isEqualTo(new JobOutcome.Refused("pubkey_mismatch", refused.refusal().message()));
        assertThat(answers.answers).singleElement().satisfies(answer -> assertThat(answer.info())
                .isEqualTo("pubkey_mismatch: " + refused.refusal().message()));
        assertThat(store.size()).isZero();
    }

    @Test
    void handle_overThePendingLimit_isRefusedWithTheApisCode() {
        service.handle(request(requestId(), TestEvents.ALICE, inAnHour("one")));
        service.handle(request(requestId(), TestEvents.ALICE, inAnHour("two")));

        JobOutcome third = service.handle(request(requestId(), TestEvents.ALICE, inAnHour("three")));

        assertThat(third).isInstanceOfSatisfying(JobOutcome.Refused.class, refused ->
                assertThat(refused.code()).isEqualTo("too_many_pending"));
        assertThat(answers.answers.get(2).info()).startsWith("too_many_pending: ");
    }

    @Test
    void handle_badInputs_areRefusedAsTheHttpBodyReaderWould() {
        JobOutcome none = service.handle(new JobRequestCommand(requestId(), TestEvents.ALICE, false,
                new Input.Tags(List.of(List.of("param", "x", "y")))));
        JobOutcome malformed = service.handle(new JobRequestCommand(requestId(), TestEvents.ALICE, false,
                new Input.Tags(List.of(List.of("i", "{\"id\":1}", "text")))));
        JobOutcome unreadable = service.handle(new JobRequestCommand(requestId(), TestEvents.ALICE, true,
                new Input.Unreadable("invalid MAC")));

        assertThat(none).isInstanceOfSatisfying(JobOutcome.Refused.class, r -> assertThat(r.code())
                .isEqualTo("invalid_request"));
        assertThat(malformed).isInstanceOfSatisfying(JobOutcome.Refused.class, r -> {
            assertThat(r.code()).isEqualTo("invalid_event");
            assertThat(r.message()).startsWith("the event is malformed: ");
        });
        assertThat(unreadable).isInstanceOfSatisfying(JobOutcome.Refused.class, r -> assertThat(r.message())
                .endsWith("invalid MAC"));
        assertThat(store.size()).isZero();
    }

    @Test
    void delete_byTheRequester_cancelsTheMessage_andByAnotherKeyDoesNothing() {
        EventId id = requestId();
        ScheduleId message = ((JobOutcome.Admitted) service.handle(request(id, TestEvents.ALICE,
                inAnHour("cancel me")))).message();

        DeletionOutcome byBob = service.delete(TestEvents.BOB, List.of(id));
        StateName afterBob = store.find(message).orElseThrow().state().stateName();
        DeletionOutcome byAlice = service.delete(TestEvents.ALICE, List.of(id));

        assertThat(byBob).isEqualTo(new DeletionOutcome(0, 0, 0, Optional.empty()));
        assertThat(afterBob).isEqualTo(StateName.SCHEDULED);
        assertThat(byAlice.cancelled()).isEqualTo(1);
        assertThat(store.find(message).orElseThrow().state().stateName()).isEqualTo(StateName.CANCELLED);
    }

    @Test
    void delete_beforeTheRequestArrives_keepsTheRequestFromEverBeingAdmitted() {
        EventId id = requestId();

        DeletionOutcome early = service.delete(TestEvents.ALICE, List.of(id));
        JobOutcome late = service.handle(request(id, TestEvents.ALICE, inAnHour("too late")));

        assertThat(early.early()).isEqualTo(1);
        assertThat(late).isInstanceOf(JobOutcome.AlreadyHandled.class);
        assertThat(store.size()).isZero();
    }

    @Test
    void answerFinished_publishedAndFailed_areAnsweredOnce_andUndeliveredAnswersTriedAgain() {
        EventId published = requestId();
        EventId failed = requestId();
        ScheduleId first = ((JobOutcome.Admitted) service.handle(request(published, TestEvents.ALICE,
                inAnHour("a")))).message();
        ScheduleId second = ((JobOutcome.Admitted) service.handle(request(failed, TestEvents.ALICE,
                inAnHour("b")))).message();
        answers.answers.clear();
        EventId eventId = new EventId("e".repeat(64));
        requests.messageEnded(first, new InMemoryJobRequests.End.Published(eventId));
        requests.messageEnded(second, new InMemoryJobRequests.End.Failed(FailureReason.ACCESS_DENIED,
                Optional.of("restricted: not a member")));

        answers.relayDown = true;
        int whileDown = service.answerFinished();
        answers.relayDown = false;
        clock.advance(Duration.ofMinutes(2));
        int afterwards = service.answerFinished();
        int again = service.answerFinished();

        assertThat(whileDown).isZero();
        assertThat(afterwards).isEqualTo(2);
        assertThat(again).isZero();
        assertThat(answers.answers.subList(2, 4)).satisfiesExactlyInAnyOrder(
                answer -> {
                    assertThat(answer.kind()).isEqualTo("6905");
                    assertThat(answer.info()).isEqualTo(eventId.hex());
                },
                answer -> {
                    assertThat(answer.status()).isEqualTo("error");
                    assertThat(answer.info()).startsWith("access_denied: ").contains("restricted: not a member");
                });
    }
}

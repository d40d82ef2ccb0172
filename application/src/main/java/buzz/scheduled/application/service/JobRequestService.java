package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.AnswerFinishedJobsUseCase;
import buzz.scheduled.application.port.in.CancelMessageUseCase;
import buzz.scheduled.application.port.in.CancelMessageUseCase.CancelMessageCommand;
import buzz.scheduled.application.port.in.JobRequestUseCase;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleMessageCommand;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase.ScheduleResult;
import buzz.scheduled.application.port.out.JobAnswers;
import buzz.scheduled.application.port.out.JobAnswers.Job;
import buzz.scheduled.application.port.out.JobRequests;
import buzz.scheduled.application.port.out.JobRequests.Handled;
import buzz.scheduled.application.port.out.JobRequests.Status;
import buzz.scheduled.application.port.out.NostrDelivery;
import buzz.scheduled.domain.notice.NoticeText;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The NIP-90 kind-5905 front door (docs/nostr.md). A request's one {@code i} input (type {@code text}: the signed
 * event as JSON, as NDK's {@code dvmSchedule} sends it) is read with the same strict reader as the HTTP body and
 * admitted by the HTTP create's own use case with the requester as the authenticated owner: every rule, limit,
 * access check and the idempotency (the event id is the key, so the same event in another request is the same
 * message) are the API's, and a requester who is not the event's author gets the API's {@code pubkey_mismatch}. The
 * answer is kind-7000 feedback: {@code success} with the message id, or {@code error} with the API's code and words
 * ({@code "<code>: <message>"}). Each request is recorded by id before it is answered, so one seen again is never
 * handled twice; a deletion by the requester cancels its message through the API's cancel, and one that comes before
 * its request keeps the request from ever being admitted.
 */
public final class JobRequestService implements JobRequestUseCase, AnswerFinishedJobsUseCase {
    /** Most deleted ids one deletion is looked at for (NIP-09 events may list many). */
    public static final int MAX_DELETED_IDS = 100;
    /** How long a deletion waits when the store could not answer its cancel. */
    static final Duration UNAVAILABLE_RETRY = Duration.ofSeconds(5);
    /** Most finished requests one answering pass takes. */
    static final int ANSWER_BATCH = 50;
    /** How long a pass keeps other nodes off the requests it answers. */
    static final Duration ANSWER_LEASE = Duration.ofSeconds(60);

    private final ScheduleMessageUseCase schedule;
    private final CancelMessageUseCase cancel;
    private final JobRequests requests;
    private final JobAnswers answers;

    public JobRequestService(ScheduleMessageUseCase schedule, CancelMessageUseCase cancel, JobRequests requests,
                             JobAnswers answers) {
        if (schedule == null || cancel == null || requests == null || answers == null) {
            throw new IllegalArgumentException("the front door needs the create and cancel use cases, its request"
                    + " store and its answers");
        }
        this.schedule = schedule;
        this.cancel = cancel;
        this.requests = requests;
        this.answers = answers;
    }

    @Override
    public JobOutcome handle(JobRequestCommand command) {
        if (requests.find(command.requestId()).isPresent()) {
            return new JobOutcome.AlreadyHandled();
        }
        Job job = new Job(command.requestId(), command.requester(), command.encrypted());
        NostrEvent event;
        switch (readEvent(command.input())) {
            case Read.Event read -> event = read.event();
            case Read.Bad bad -> {
                return refuse(command, job, bad.code(), bad.message());
            }
        }
        ScheduleResult result = schedule.schedule(new ScheduleMessageCommand(command.requester(), event,
                Optional.empty()));
        return switch (result) {
            case ScheduleResult.Created created -> admitted(command, job, created.message(), false);
            case ScheduleResult.Replayed replayed -> admitted(command, job, replayed.message(), true);
            case ScheduleResult.Refused refused -> refuse(command, job, refused.refusal().code().wireName(),
                    refused.refusal().message());
            case ScheduleResult.IdempotencyConflict conflict -> refuse(command, job, "idempotency_conflict",
                    conflict.message());
            case ScheduleResult.RateLimited limited -> refuse(command, job, "rate_limited", limited.message());
            case ScheduleResult.Unavailable unavailable -> refuse(command, job, "unavailable", unavailable.message());
        };
    }

    private JobOutcome admitted(JobRequestCommand command, Job job, ScheduledMessage message, boolean replayed) {
        Handled stored = requests.record(new Handled(command.requestId(), command.requester(), command.encrypted(),
                Status.ADMITTED, Optional.of(message.id())));
        if (stored.status() == Status.DELETED) {
            // Its author deleted the request while it was being admitted: the deletion wins, as it would have first.
            cancel.cancel(new CancelMessageCommand(command.requester(), message.id()));
            return new JobOutcome.AlreadyHandled();
        }
        answers.feedback(job, JobAnswers.Status.SUCCESS, "scheduled as " + message.id() + ", due "
                + NoticeText.utc(message.dueAt()), Optional.of(message.id().toString()));
        return new JobOutcome.Admitted(message.id(), replayed);
    }

    private JobOutcome refuse(JobRequestCommand command, Job job, String code, String message) {
        Handled stored = requests.record(new Handled(command.requestId(), command.requester(), command.encrypted(),
                Status.REFUSED, Optional.empty()));
        if (stored.status() != Status.REFUSED) {
            return new JobOutcome.AlreadyHandled();
        }
        answers.feedback(job, JobAnswers.Status.ERROR, code + ": " + message, Optional.empty());
        return new JobOutcome.Refused(code, message);
    }

    /** The request's one event, or the API's refusal of the input (the HTTP body reader's words). */
    private static Read readEvent(Input input) {
        List<List<String>> tags;
        switch (input) {
            case Input.Unreadable unreadable -> {
                return new Read.Bad("invalid_request", "the request's encrypted content could not be read: "
                        + unreadable.why());
            }
            case Input.Tags withTags -> tags = withTags.tags();
        }
        List<List<String>> inputs = tags.stream().filter(tag -> tag.get(0).equals("i")).toList();
        if (inputs.size() != 1) {
            return new Read.Bad("invalid_request", "a kind-5905 request here carries exactly one event, in one \"i\""
                    + " tag; this one has " + inputs.size());
        }
        List<String> tag = inputs.get(0);
        if (tag.size() < 2) {
            return new Read.Bad("invalid_request", "the \"i\" tag has no value; put the signed event's JSON there");
        }
        if (tag.size() > 2 && !tag.get(2).equals("text")) {
            return new Read.Bad("invalid_request", "the \"i\" tag's input type must be \"text\" (the signed event as"
                    + " JSON), got \"" + tag.get(2) + "\"");
        }
        return switch (NostrEventJson.read(tag.get(1))) {
            case NostrEventJson.Decoded.Malformed malformed -> new Read.Bad("invalid_event",
                    "the event is malformed: " + malformed.reason());
            case NostrEventJson.Decoded.Event event -> new Read.Event(event.event());
        };
    }

    private sealed interface Read {
        record Event(NostrEvent event) implements Read {
        }

        record Bad(String code, String message) implements Read {
        }
    }

    @Override
    public DeletionOutcome delete(PublicKey author, List<EventId> deleted) {
        int cancelled = 0;
        int refused = 0;
        int early = 0;
        for (EventId id : deleted.subList(0, Math.min(deleted.size(), MAX_DELETED_IDS))) {
            Optional<Handled> found = requests.find(id);
            Handled handled = found.orElseGet(() -> requests.record(new Handled(id, author, false, Status.DELETED,
                    Optional.empty())));
            if (!handled.requester().equals(author)) {
                continue; // NIP-09: only an event's author can delete it
            }
            if (handled.status() == Status.DELETED) {
                early += found.isEmpty() ? 1 : 0;
                continue;
            }
            if (handled.status() != Status.ADMITTED) {
                continue;
            }
            ScheduleId message = handled.message().orElseThrow();
            OwnerChangeResult result = cancel.cancel(new CancelMessageCommand(author, message));
            switch (result) {
                case OwnerChangeResult.Done done -> cancelled++;
                case OwnerChangeResult.StateConflict conflict -> {
                    refused++;
                    answers.feedback(new Job(id, author, handled.encrypted()), JobAnswers.Status.ERROR,
                            conflict.refusal().wireName() + ": " + conflict.message(), Optional.of(message.toString()));
                }
                case OwnerChangeResult.RateLimited limited -> {
                    return new DeletionOutcome(cancelled, refused, early, Optional.of(limited.retryAfter()));
                }
                case OwnerChangeResult.Unavailable unavailable -> {
                    return new DeletionOutcome(cancelled, refused, early, Optional.of(UNAVAILABLE_RETRY));
                }
                case OwnerChangeResult.NotFound notFound -> {
                    // pruned, or purged by an operator: nothing left to cancel
                }
                case OwnerChangeResult.RevisionConflict conflict -> throw new IllegalStateException(
                        "a cancel never checks a revision");
                case OwnerChangeResult.Refused refusal -> throw new IllegalStateException(
                        "a cancel never re-admits an event");
            }
        }
        return new DeletionOutcome(cancelled, refused, early, Optional.empty());
    }

    @Override
    public int answerFinished() {
        int answered = 0;
        for (JobRequests.Finished finished : requests.takeFinished(ANSWER_BATCH, ANSWER_LEASE)) {
            Handled request = finished.request();
            if (finished.cancelled()) {
                requests.answered(request.requestId());
                continue;
            }
            Job job = new Job(request.requestId(), request.requester(), request.encrypted());
            NostrDelivery delivery;
            if (finished.published().isPresent()) {
                delivery = answers.result(job, finished.published().get());
            } else {
                var reason = finished.failure().orElseThrow(() -> new IllegalStateException(
                        "request " + request.requestId() + " finished neither published, failed nor cancelled"));
                delivery = answers.feedback(job, JobAnswers.Status.ERROR, reason.wireName() + ": "
                        + NoticeText.why(reason) + finished.relayWords().filter(words -> !words.isBlank())
                        .map(words -> " (last attempt: \"" + words + "\")").orElse(""),
                        request.message().map(ScheduleId::toString));
            }
            if (delivery instanceof NostrDelivery.Delivered) {
                requests.answered(request.requestId());
                answered++;
            }
        }
        return answered;
    }
}

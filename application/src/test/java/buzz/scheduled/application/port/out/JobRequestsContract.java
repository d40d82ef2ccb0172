package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.InMemoryJobRequests.End;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.JobRequests.Finished;
import buzz.scheduled.application.port.out.JobRequests.Handled;
import buzz.scheduled.application.port.out.JobRequests.Status;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link JobRequests} store must have, run against the fake and PostgreSQL. */
public abstract class JobRequestsContract {
    private static final Duration LEASE = Duration.ofMinutes(1);
    private static int next = 1;

    protected JobRequests requests;

    /** A store with no requests. */
    protected abstract JobRequests emptyStore();

    /** A new pending message of {@code owner}. */
    protected abstract ScheduleId pendingMessage(PublicKey owner);

    /** Message {@code id} ends so. */
    protected abstract void messageEnded(ScheduleId id, End end);

    /** The store's clock moves on by {@code duration}. */
    protected abstract void timePasses(Duration duration);

    @BeforeEach
    void setUp() {
        requests = emptyStore();
    }

    protected static synchronized EventId freshId() {
        return new EventId(String.format("%064x", System.nanoTime() * 1000 + next++));
    }

    private Handled admitted(ScheduleId message) {
        return requests.record(new Handled(freshId(), TestEvents.ALICE, true, Status.ADMITTED, Optional.of(message)));
    }

    @Test
    void record_newRequest_isStoredAndFound() {
        ScheduleId message = pendingMessage(TestEvents.ALICE);
        Handled handled = new Handled(freshId(), TestEvents.ALICE, true, Status.ADMITTED, Optional.of(message));

        assertThat(requests.record(handled)).isEqualTo(handled);
        assertThat(requests.find(handled.requestId())).contains(handled);
        assertThat(requests.find(freshId())).isEmpty();
    }

    @Test
    void record_requestAlreadyRecorded_keepsAndAnswersTheFirstRecord() {
        EventId id = freshId();
        Handled deletedFirst = new Handled(id, TestEvents.ALICE, false, Status.DELETED, Optional.empty());
        requests.record(deletedFirst);

        Handled second = requests.record(new Handled(id, TestEvents.ALICE, true, Status.ADMITTED,
                Optional.of(pendingMessage(TestEvents.ALICE))));

        assertThat(second).isEqualTo(deletedFirst);
        assertThat(requests.find(id)).contains(deletedFirst);
    }

    @Test
    void takeFinished_endedMessages_areTakenOnceWithHowTheyEnded_andPendingOnesNot() {
        ScheduleId pending = pendingMessage(TestEvents.ALICE);
        ScheduleId published = pendingMessage(TestEvents.ALICE);
        ScheduleId failed = pendingMessage(TestEvents.ALICE);
        ScheduleId cancelled = pendingMessage(TestEvents.ALICE);
        admitted(pending);
        Handled publishedRequest = admitted(published);
        Handled failedRequest = admitted(failed);
        Handled cancelledRequest = admitted(cancelled);
        EventId eventId = new EventId("e".repeat(64));
        messageEnded(published, new End.Published(eventId));
        messageEnded(failed, new End.Failed(FailureReason.RELAY_REJECTED, Optional.of("blocked: no")));
        messageEnded(cancelled, new End.Cancelled());

        List<Finished> first = requests.takeFinished(10, LEASE);
        List<Finished> again = requests.takeFinished(10, LEASE);

        assertThat(first).hasSize(3);
        assertThat(first).filteredOn(f -> f.request().equals(publishedRequest)).singleElement()
                .satisfies(f -> assertThat(f.published()).contains(eventId));
        assertThat(first).filteredOn(f -> f.request().equals(failedRequest)).singleElement().satisfies(f -> {
            assertThat(f.failure()).contains(FailureReason.RELAY_REJECTED);
            assertThat(f.relayWords()).contains("blocked: no");
            assertThat(f.published()).isEmpty();
        });
        assertThat(first).filteredOn(f -> f.request().equals(cancelledRequest)).singleElement()
                .satisfies(f -> assertThat(f.cancelled()).isTrue());
        assertThat(again).isEmpty();
    }

    @Test
    void takeFinished_unansweredAfterTheLease_isTakenAgain_andAnsweredNever() {
        ScheduleId first = pendingMessage(TestEvents.ALICE);
        ScheduleId second = pendingMessage(TestEvents.ALICE);
        Handled unanswered = admitted(first);
        Handled answered = admitted(second);
        messageEnded(first, new End.Published(new EventId("e".repeat(64))));
        messageEnded(second, new End.Published(new EventId("f".repeat(64))));
        requests.takeFinished(10, LEASE);
        requests.answered(answered.requestId());

        timePasses(LEASE.plusSeconds(1));

        assertThat(requests.takeFinished(10, LEASE)).extracting(Finished::request).containsExactly(unanswered);
    }
}

package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.JobRequests;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Handled job requests in memory, on a {@link SettableClock}. Where PostgreSQL joins the message table for the end
 * states, a test tells this fake how a message ended with {@link #messageEnded}.
 */
public final class InMemoryJobRequests implements JobRequests {
    private final SettableClock clock;
    private final Map<EventId, Handled> requests = new LinkedHashMap<>();
    private final Map<EventId, Instant> leases = new HashMap<>();
    private final Map<EventId, Boolean> answered = new HashMap<>();
    private final Map<ScheduleId, End> ends = new HashMap<>();

    /** How a message ended. */
    public sealed interface End {
        record Published(EventId eventId) implements End {
        }

        record Failed(FailureReason reason, Optional<String> relayWords) implements End {
        }

        record Cancelled() implements End {
        }
    }

    public InMemoryJobRequests(SettableClock clock) {
        this.clock = clock;
    }

    /** Message {@code id} ended so. */
    public synchronized void messageEnded(ScheduleId id, End end) {
        ends.put(id, end);
    }

    @Override
    public synchronized Optional<Handled> find(EventId requestId) {
        return Optional.ofNullable(requests.get(requestId));
    }

    @Override
    public synchronized Handled record(Handled handled) {
        return requests.computeIfAbsent(handled.requestId(), id -> handled);
    }

    @Override
    public synchronized List<Finished> takeFinished(int max, Duration lease) {
        Instant now = clock.now();
        List<Finished> taken = new ArrayList<>();
        for (Handled handled : requests.values()) {
            if (taken.size() >= max) {
                break;
            }
            if (handled.status() != Status.ADMITTED || answered.containsKey(handled.requestId())) {
                continue;
            }
            Instant leased = leases.get(handled.requestId());
            End end = ends.get(handled.message().orElseThrow());
            if (end == null || (leased != null && !leased.isBefore(now))) {
                continue;
            }
            leases.put(handled.requestId(), now.plus(lease));
            taken.add(switch (end) {
                case End.Published published -> new Finished(handled, Optional.of(published.eventId()),
                        Optional.empty(), Optional.empty(), false);
                case End.Failed failed -> new Finished(handled, Optional.empty(), Optional.of(failed.reason()),
                        failed.relayWords(), false);
                case End.Cancelled cancelled -> new Finished(handled, Optional.empty(), Optional.empty(),
                        Optional.empty(), true);
            });
        }
        return taken;
    }

    @Override
    public synchronized void answered(EventId requestId) {
        answered.put(requestId, true);
        leases.remove(requestId);
    }
}

package buzz.scheduled.domain.schedule;

import java.time.Instant;
import java.util.Optional;

/**
 * The lifecycle of a scheduled message (SPEC §2): {@code scheduled → claimed → sending → published}, with
 * terminal {@code cancelled} and {@code failed}. Data that belongs to one state lives on that state's record.
 */
public sealed interface ScheduleState {

    /** The state's name in the API and the database. */
    String wireName();

    /** Whether no transition leaves this state. */
    default boolean terminal() {
        return false;
    }

    /** Waiting for its due time (and, after a transient failure, for {@code retryAt}). */
    record Scheduled(Optional<Instant> retryAt) implements ScheduleState {
        /** Scheduled with no retry delay. */
        public static final Scheduled NOW = new Scheduled(Optional.empty());

        public Scheduled {
            if (retryAt == null) {
                throw new IllegalArgumentException("retryAt must be present or empty, not null");
            }
        }

        @Override
        public String wireName() {
            return "scheduled";
        }
    }

    /** Claimed by a dispatcher that holds {@code token} until {@code leaseUntil}; nothing sent yet. */
    record Claimed(FencingToken token, Instant leaseUntil) implements ScheduleState {
        public Claimed {
            if (token == null) {
                throw new IllegalArgumentException("a claim needs a fencing token");
            }
            if (leaseUntil == null) {
                throw new IllegalArgumentException("a claim needs a lease end (leaseUntil)");
            }
        }

        @Override
        public String wireName() {
            return "claimed";
        }
    }

    /** Passed the fenced pre-send step; the event is on its way to the relay. */
    record Sending(FencingToken token, Instant leaseUntil) implements ScheduleState {
        public Sending {
            if (token == null) {
                throw new IllegalArgumentException("sending needs a fencing token");
            }
            if (leaseUntil == null) {
                throw new IllegalArgumentException("sending needs a lease end (leaseUntil)");
            }
        }

        @Override
        public String wireName() {
            return "sending";
        }
    }

    /** The relay accepted the event ({@code OK true} or {@code duplicate:}). */
    record Published(Instant publishedAt) implements ScheduleState {
        public Published {
            if (publishedAt == null) {
                throw new IllegalArgumentException("publishedAt is missing");
            }
        }

        @Override
        public String wireName() {
            return "published";
        }

        @Override
        public boolean terminal() {
            return true;
        }
    }

    /** Cancelled by its owner (or an operator purge); the event payload is gone. */
    record Cancelled(Instant cancelledAt) implements ScheduleState {
        public Cancelled {
            if (cancelledAt == null) {
                throw new IllegalArgumentException("cancelledAt is missing");
            }
        }

        @Override
        public String wireName() {
            return "cancelled";
        }

        @Override
        public boolean terminal() {
            return true;
        }
    }

    /** Will never be delivered, for {@code reason}. */
    record Failed(FailureReason reason, Instant failedAt) implements ScheduleState {
        public Failed {
            if (reason == null) {
                throw new IllegalArgumentException("a failure needs a reason");
            }
            if (failedAt == null) {
                throw new IllegalArgumentException("a failure needs a time (failedAt)");
            }
        }

        @Override
        public String wireName() {
            return "failed";
        }

        @Override
        public boolean terminal() {
            return true;
        }
    }
}

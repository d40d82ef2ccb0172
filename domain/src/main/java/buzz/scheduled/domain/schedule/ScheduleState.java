package buzz.scheduled.domain.schedule;

import java.time.Instant;
import java.util.Optional;

/**
 * The lifecycle state of a scheduled message with the data that belongs to it: one record per {@link StateName}.
 * Which operation leads from which state to which is {@link Transition}'s table. A store keeps a state flattened as
 * {@link Fields} and rebuilds it through {@link #of}, that is through the records' own constructors.
 */
public sealed interface ScheduleState {

    /** Which state this is. */
    StateName stateName();

    /** The state's name in the API and the database. */
    default String wireName() {
        return stateName().wireName();
    }

    /** Whether this state ended ({@link StateName#terminal()}). */
    default boolean terminal() {
        return stateName().terminal();
    }

    /**
     * Whether the event payload stays in this state: its name's {@link StateName#keepsEvent()}, except a failure whose
     * reason {@linkplain FailureReason#purgesEvent() purges it}.
     */
    default boolean keepsEvent() {
        return stateName().keepsEvent() && !(this instanceof Failed failed && failed.reason().purgesEvent());
    }

    /** This state flattened: its name and, of the data any state may hold, what this one holds. */
    default Fields fields() {
        return switch (this) {
            case Scheduled s -> Fields.of(StateName.SCHEDULED).withRetryAt(s.retryAt());
            case Claimed c -> Fields.of(StateName.CLAIMED).withClaim(c.token(), c.leaseUntil());
            case Sending s -> Fields.of(StateName.SENDING).withClaim(s.token(), s.leaseUntil());
            case Published p -> Fields.of(StateName.PUBLISHED).withFinishedAt(p.publishedAt());
            case Cancelled c -> Fields.of(StateName.CANCELLED).withFinishedAt(c.cancelledAt());
            case Failed f -> Fields.of(StateName.FAILED).withFinishedAt(f.failedAt()).withReason(f.reason());
        };
    }

    /**
     * The state {@code fields} describe, built by its record's constructor.
     *
     * @throws IllegalArgumentException when a part the state needs is missing (a claim without its lease end), or a
     *                                  part it cannot hold is present (a retry time on a published message)
     */
    static ScheduleState of(Fields fields) {
        StateName name = fields.name();
        refuse(name, "a retry time", fields.retryAt().isPresent() && !name.waitsForRetry());
        refuse(name, "a claim", (fields.token().isPresent() || fields.leaseUntil().isPresent()) && !name.holdsClaim());
        refuse(name, "an end time", fields.finishedAt().isPresent() && !name.terminal());
        refuse(name, "a failure reason", fields.reason().isPresent() && !name.hasReason());
        return switch (name) {
            case SCHEDULED -> new Scheduled(fields.retryAt());
            case CLAIMED -> new Claimed(fields.token().orElse(null), fields.leaseUntil().orElse(null));
            case SENDING -> new Sending(fields.token().orElse(null), fields.leaseUntil().orElse(null));
            case PUBLISHED -> new Published(fields.finishedAt().orElse(null));
            case CANCELLED -> new Cancelled(fields.finishedAt().orElse(null));
            case FAILED -> new Failed(fields.reason().orElse(null), fields.finishedAt().orElse(null));
        };
    }

    private static void refuse(StateName name, String part, boolean present) {
        if (present) {
            throw new IllegalArgumentException(name.wireName() + " cannot hold " + part);
        }
    }

    /**
     * A state flattened as a store keeps it (one column each): the name, and the parts that states hold, each empty
     * unless this state holds it.
     *
     * @param name       which state
     * @param retryAt    "not before", while {@linkplain StateName#waitsForRetry() waiting for a retry}
     * @param token      the claim's fencing token, while a claim is {@linkplain StateName#holdsClaim() held}
     * @param leaseUntil when that claim lapses unless renewed
     * @param finishedAt when a {@linkplain StateName#terminal() terminal} state was entered
     * @param reason     why it {@linkplain StateName#hasReason() failed}
     */
    record Fields(StateName name, Optional<Instant> retryAt, Optional<FencingToken> token, Optional<Instant> leaseUntil,
                  Optional<Instant> finishedAt, Optional<FailureReason> reason) {
        public Fields {
            if (name == null || retryAt == null || token == null || leaseUntil == null || finishedAt == null
                    || reason == null) {
                throw new IllegalArgumentException("state fields need a name and every part present or empty");
            }
        }

        /** {@code name} with every part empty. */
        public static Fields of(StateName name) {
            return new Fields(name, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.empty());
        }

        /** The same with {@code retryAt}. */
        public Fields withRetryAt(Optional<Instant> retryAt) {
            return new Fields(name, retryAt, token, leaseUntil, finishedAt, reason);
        }

        /** The same with a claim. */
        public Fields withClaim(FencingToken token, Instant leaseUntil) {
            return new Fields(name, retryAt, Optional.ofNullable(token), Optional.ofNullable(leaseUntil), finishedAt,
                    reason);
        }

        /** The same with an end time. */
        public Fields withFinishedAt(Instant finishedAt) {
            return new Fields(name, retryAt, token, leaseUntil, Optional.ofNullable(finishedAt), reason);
        }

        /** The same with a failure reason. */
        public Fields withReason(FailureReason reason) {
            return new Fields(name, retryAt, token, leaseUntil, finishedAt, Optional.ofNullable(reason));
        }
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
        public StateName stateName() {
            return StateName.SCHEDULED;
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
        public StateName stateName() {
            return StateName.CLAIMED;
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
        public StateName stateName() {
            return StateName.SENDING;
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
        public StateName stateName() {
            return StateName.PUBLISHED;
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
        public StateName stateName() {
            return StateName.CANCELLED;
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
        public StateName stateName() {
            return StateName.FAILED;
        }
    }
}

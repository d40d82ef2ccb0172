package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The steps a dispatcher takes to turn "due" into "published" (SPEC §3.6–3.8, DELIVERY.md): claim a batch,
 * pass each claim through the fenced pre-send step, publish (the dispatcher's own I/O), then record the
 * outcome with a fenced write. Each step is its own short transaction; none is held across relay I/O.
 */
public interface DeliveryUseCase {

    /** Claims up to {@code limit} due messages on the store's clock; committed before this returns. */
    List<ClaimedWork> claimDue(int limit);

    /**
     * The fenced pre-send step: re-reads the message, re-checks token, revision, the channel's tombstone, access,
     * lateness and lease, and moves it {@code claimed → sending}. Only on {@link GateResult.Send} may the event
     * be published.
     */
    GateResult startSending(ClaimedWork work);

    /** Records the relay's acceptance ({@code OK true} or {@code duplicate:}). */
    boolean published(ClaimedWork work);

    /** Schedules a retry with backoff after a transient answer, or fails it {@code expired} past the limit. */
    boolean retryLater(ClaimedWork work, String why);

    /** Fails it for good (e.g. {@code relay_rejected}); never retried. */
    boolean failed(ClaimedWork work, FailureReason reason, String why);

    /** Gives back a claim that was never started (graceful shutdown). */
    boolean release(ClaimedWork work);

    /**
     * Extends the leases of claims still in flight ({@code claimed} or {@code sending} with the same token) to
     * the store's now + the configured lease (DELIVERY.md step 2). Fenced by (id, token): a claim that was
     * reaped, superseded or finished is not renewed.
     *
     * @return the ids whose lease was renewed; an id missing from it means that claim is no longer held
     */
    Set<ScheduleId> renewLeases(Collection<ClaimedWork> claims);

    /** Returns messages whose leases expired to {@code scheduled}; idempotent, safe on several nodes. */
    int reapExpiredLeases();

    /** When the next message becomes claimable, if any (for the dispatcher's sleep), on the store's clock. */
    Optional<Instant> nextDueAt();

    /** The store's clock: what {@link #nextDueAt()} is to be compared with. */
    Instant now();

    /**
     * A claim held by this dispatcher.
     *
     * @param id         the message
     * @param token      the claim's fencing token
     * @param revision   the revision claimed (a newer one revokes the claim)
     * @param event      the event of that revision
     * @param dueAt      when it became due
     * @param leaseUntil when the claim lapses unless renewed (store clock)
     * @param attempts   claims made so far, this one included
     * @param claimed    the message exactly as the claim left it (the expected value of the fenced writes)
     */
    record ClaimedWork(ScheduleId id, FencingToken token, Revision revision, NostrEvent event, Instant dueAt,
                       Instant leaseUntil, int attempts, ScheduledMessage claimed) {
        public ClaimedWork {
            if (id == null || token == null || revision == null || event == null || dueAt == null
                    || leaseUntil == null || claimed == null) {
                throw new IllegalArgumentException("claimed work has a missing field");
            }
            if (!claimed.id().equals(id) || !claimed.revision().equals(revision)
                    || !claimed.token().equals(java.util.Optional.of(token))) {
                throw new IllegalArgumentException("claimed work " + id + " does not match its claimed message");
            }
        }

        /** The claim as a store key. */
        public buzz.scheduled.application.port.out.ScheduleStore.Claim claim() {
            return new buzz.scheduled.application.port.out.ScheduleStore.Claim(id, token);
        }

        /** Reads a freshly claimed message. */
        public static ClaimedWork of(ScheduledMessage claimed) {
            if (!(claimed.state() instanceof buzz.scheduled.domain.schedule.ScheduleState.Claimed state)) {
                throw new IllegalArgumentException("message " + claimed.id() + " is not claimed");
            }
            NostrEvent event = claimed.event().orElseThrow(
                    () -> new IllegalStateException("claimed message " + claimed.id() + " has no event"));
            return new ClaimedWork(claimed.id(), state.token(), claimed.revision(), event, claimed.dueAt(),
                    state.leaseUntil(), claimed.attempts(), claimed);
        }
    }

    /** The fenced pre-send step's answer. */
    sealed interface GateResult {
        /**
         * Publish {@code event} now. {@code budget} is what was left of the lease less the safety margin when the
         * store answered; the caller measures it on its monotonic clock from just before it asked (so its
         * deadline can only end before the lease does), publishes nothing once it has passed, and otherwise
         * waits for the relay's answer for the publish timeout or until that deadline, whichever is sooner.
         */
        record Send(NostrEvent event, Duration budget) implements GateResult {
        }

        /** The claim is no longer this dispatcher's (a fence rejection): send nothing. */
        record Dropped(String why) implements GateResult {
        }

        /** The message ended instead (expired, access denied): send nothing. */
        record Ended(ScheduledMessage message) implements GateResult {
        }

        /** The access policy could not answer: retry later was scheduled; send nothing now. */
        record Deferred(String why) implements GateResult {
        }
    }
}

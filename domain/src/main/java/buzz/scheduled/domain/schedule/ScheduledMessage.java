package buzz.scheduled.domain.schedule;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleState.Cancelled;
import buzz.scheduled.domain.schedule.ScheduleState.Claimed;
import buzz.scheduled.domain.schedule.ScheduleState.Failed;
import buzz.scheduled.domain.schedule.ScheduleState.Published;
import buzz.scheduled.domain.schedule.ScheduleState.Scheduled;
import buzz.scheduled.domain.schedule.ScheduleState.Sending;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The scheduled-message aggregate: one owner's signed event (the current revision) waiting to be published to
 * the relay at its due time. Every transition takes {@code now} (the caller decides which clock: delivery
 * decisions use the database clock) and returns the next value or a sealed outcome; nothing here reads a clock.
 *
 * @param id        sidecar-chosen identity
 * @param owner     the author: the authenticated pubkey that admitted it, equal to the event's pubkey
 * @param channel   the event's {@code h} tag
 * @param revision  current revision
 * @param eventId   id of the current revision's event (kept after the payload is purged)
 * @param dueAt     when it may be published: the event's {@code created_at}, or the send-now time
 * @param event     the exact signed event of the current revision; empty once purged
 * @param state     lifecycle state with its own data
 * @param attempts  how many claims were made for it
 * @param createdAt when it was admitted
 * @param updatedAt when it last changed
 */
public record ScheduledMessage(
        ScheduleId id, PublicKey owner, Channel channel, Revision revision, EventId eventId, Instant dueAt,
        Optional<NostrEvent> event, ScheduleState state, int attempts, Instant createdAt, Instant updatedAt) {

    public ScheduledMessage {
        requirePresent(id, "id", id);
        requirePresent(id, "owner", owner);
        requirePresent(id, "channel", channel);
        requirePresent(id, "revision", revision);
        requirePresent(id, "eventId", eventId);
        requirePresent(id, "dueAt", dueAt);
        requirePresent(id, "event", event);
        requirePresent(id, "state", state);
        requirePresent(id, "createdAt", createdAt);
        requirePresent(id, "updatedAt", updatedAt);
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must not be negative, got " + attempts);
        }
        if (event.isPresent()) {
            NostrEvent e = event.get();
            if (!e.id().equals(eventId)) {
                throw new IllegalArgumentException("event id " + e.id() + " is not the recorded " + eventId);
            }
            if (!e.pubkey().equals(owner)) {
                throw new IllegalArgumentException("event pubkey " + e.pubkey() + " is not the owner " + owner);
            }
        } else if (!(state instanceof Cancelled || state instanceof Failed || state instanceof Published)) {
            throw new IllegalArgumentException("only a terminal message may have its event purged, state is "
                    + state.wireName());
        }
    }

    private static void requirePresent(ScheduleId id, String field, Object value) {
        if (value == null) {
            throw new IllegalArgumentException("scheduled message " + id + ": " + field + " is missing");
        }
    }

    /**
     * A newly admitted message in revision 1, due at the event's {@code created_at}.
     *
     * @param admission the checked admission (see {@link AdmissionRules})
     */
    public static ScheduledMessage admit(ScheduleId id, Admission admission, Instant now) {
        NostrEvent event = admission.event();
        return new ScheduledMessage(id, event.pubkey(), admission.channel(), Revision.FIRST, event.id(),
                admission.dueAt(), Optional.of(event), Scheduled.NOW, 0, now, now);
    }

    /** Whether the owner can still change it: {@code scheduled} or {@code claimed}. */
    public boolean pending() {
        return state instanceof Scheduled || state instanceof Claimed;
    }

    /** The claim's fencing token while {@code claimed} or {@code sending}. */
    public Optional<FencingToken> token() {
        return switch (state) {
            case Claimed claimed -> Optional.of(claimed.token());
            case Sending sending -> Optional.of(sending.token());
            case Scheduled s -> Optional.empty();
            case Published p -> Optional.empty();
            case Cancelled c -> Optional.empty();
            case Failed f -> Optional.empty();
        };
    }

    /** When the relay accepted it, if it did. */
    public Optional<Instant> publishedAt() {
        return state instanceof Published published ? Optional.of(published.publishedAt()) : Optional.empty();
    }

    /** The failure reason, if it failed. */
    public Optional<FailureReason> failureReason() {
        return state instanceof Failed failed ? Optional.of(failed.reason()) : Optional.empty();
    }

    // ---------------------------------------------------------------------------------------------------
    // Owner operations (SPEC §3.3–3.5)

    /**
     * Replaces the event with a newly admitted one as the next revision (SPEC §3.3). In {@code claimed} the
     * new revision revokes the claim: the dispatcher's fenced pre-send step will no longer match.
     *
     * @param expected the revision the owner read ({@code If-Match})
     */
    public OwnerOutcome revise(Admission admission, Revision expected, Instant now) {
        return switch (state) {
            case Scheduled s -> reviseChecked(admission, expected, now);
            case Claimed c -> reviseChecked(admission, expected, now);
            case Sending s -> new OwnerOutcome.Refused(OwnerRefusal.DISPATCHING);
            case Published p -> new OwnerOutcome.Refused(OwnerRefusal.NOT_PENDING);
            case Cancelled c -> new OwnerOutcome.Refused(OwnerRefusal.NOT_PENDING);
            case Failed f -> new OwnerOutcome.Refused(OwnerRefusal.NOT_PENDING);
        };
    }

    private OwnerOutcome reviseChecked(Admission admission, Revision expected, Instant now) {
        if (!expected.equals(revision)) {
            return new OwnerOutcome.RevisionConflict(revision);
        }
        if (!admission.event().pubkey().equals(owner)) {
            throw new IllegalArgumentException("a revision must be signed by the owner " + owner);
        }
        return new OwnerOutcome.Changed(withNewEvent(admission.event(), admission.channel(), admission.dueAt(), now));
    }

    private ScheduledMessage withNewEvent(NostrEvent newEvent, Channel newChannel, Instant newDueAt, Instant now) {
        return new ScheduledMessage(id, owner, newChannel, revision.next(), newEvent.id(), newDueAt,
                Optional.of(newEvent), Scheduled.NOW, attempts, createdAt, now);
    }

    /**
     * Cancels it (SPEC §3.4) and drops the event payload at once. Cancelling a cancelled message answers it
     * again unchanged.
     */
    public OwnerOutcome cancel(Instant now) {
        return switch (state) {
            case Scheduled s -> new OwnerOutcome.Changed(terminate(new Cancelled(now), now));
            case Claimed c -> new OwnerOutcome.Changed(terminate(new Cancelled(now), now));
            case Cancelled c -> new OwnerOutcome.Unchanged(this);
            case Sending s -> new OwnerOutcome.Refused(OwnerRefusal.DISPATCHING);
            case Published p -> new OwnerOutcome.Refused(OwnerRefusal.ALREADY_SENT);
            case Failed f -> new OwnerOutcome.Refused(OwnerRefusal.NOT_PENDING);
        };
    }

    /**
     * Makes it due now with a newly signed event (SPEC §3.5): a new revision, due at {@code now}.
     *
     * @param relayWindow how far from {@code now} the relay accepts a {@code created_at}
     */
    public OwnerOutcome sendNow(Admission admission, Duration relayWindow, Instant now) {
        if (!pending()) {
            return refusalWhenNotPending();
        }
        if (!withinWindow(admission.event().createdAt(), relayWindow, now)) {
            return new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED);
        }
        return new OwnerOutcome.Changed(withNewEvent(admission.event(), admission.channel(), now, now));
    }

    /**
     * Makes it due now with the stored event (SPEC §3.5), allowed only while the stored {@code created_at} is
     * within the relay's window of {@code now}; else {@code resign_required}.
     */
    public OwnerOutcome sendNow(Duration relayWindow, Instant now) {
        if (!pending()) {
            return refusalWhenNotPending();
        }
        NostrEvent stored = event.orElseThrow(() -> new IllegalStateException("pending message " + id + " has no event"));
        if (!withinWindow(stored.createdAt(), relayWindow, now)) {
            return new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED);
        }
        return new OwnerOutcome.Changed(new ScheduledMessage(id, owner, channel, revision, eventId,
                now.isBefore(dueAt) ? now : dueAt, event, Scheduled.NOW, attempts, createdAt, now));
    }

    private OwnerOutcome refusalWhenNotPending() {
        return switch (state) {
            case Sending s -> new OwnerOutcome.Refused(OwnerRefusal.DISPATCHING);
            case Published p -> new OwnerOutcome.Refused(OwnerRefusal.ALREADY_SENT);
            case Scheduled s -> throw new IllegalStateException("scheduled is pending");
            case Claimed c -> throw new IllegalStateException("claimed is pending");
            case Cancelled c -> new OwnerOutcome.Refused(OwnerRefusal.NOT_PENDING);
            case Failed f -> new OwnerOutcome.Refused(OwnerRefusal.NOT_PENDING);
        };
    }

    private static boolean withinWindow(long createdAt, Duration window, Instant now) {
        long distance = Math.abs(createdAt - now.getEpochSecond());
        return distance <= window.toSeconds();
    }

    // ---------------------------------------------------------------------------------------------------
    // Delivery (SPEC §3.6–3.8, DELIVERY.md)

    /**
     * Claims it for a dispatcher, straight into {@code sending} (docs/delivery.md, "The hot path"): only from
     * {@code scheduled}, only when due and past any retry time. From this moment edits and cancels answer
     * {@code dispatching}; the checks that remain before the frame leaves ({@link PreSendCheck}, the access policy)
     * end the message from {@code sending} if they fail.
     *
     * @param token      the claim's fencing token
     * @param leaseUntil when the claim lapses unless renewed (store clock)
     * @param now        the database clock
     */
    public DeliveryOutcome claim(FencingToken token, Instant leaseUntil, Instant now) {
        if (!(state instanceof Scheduled scheduled)) {
            return new DeliveryOutcome.Fenced("cannot claim in state " + state.wireName());
        }
        if (now.isBefore(dueAt)) {
            return new DeliveryOutcome.Fenced("not due until " + dueAt);
        }
        if (scheduled.retryAt().isPresent() && now.isBefore(scheduled.retryAt().get())) {
            return new DeliveryOutcome.Fenced("retry not before " + scheduled.retryAt().get());
        }
        if (!leaseUntil.isAfter(now)) {
            throw new IllegalArgumentException("lease must end after now");
        }
        return new DeliveryOutcome.Moved(with(new Sending(token, leaseUntil), attempts + 1, now));
    }

    /** Records the relay's acceptance; only the holder of {@code token} in {@code sending} may. */
    public DeliveryOutcome publish(FencingToken token, Instant now) {
        if (!(state instanceof Sending sending) || !sending.token().equals(token)) {
            return fenced(token);
        }
        return new DeliveryOutcome.Moved(with(new Published(now), attempts, now));
    }

    /**
     * After a transient relay answer: back to {@code scheduled} not before {@code retryAt}, or {@code failed
     * expired} when {@code retryAt} is past the lateness limit.
     */
    public DeliveryOutcome retryLater(FencingToken token, Instant retryAt, Duration maxLateness, Instant now) {
        if (!holds(token)) {
            return fenced(token);
        }
        if (Lateness.expired(dueAt, maxLateness, retryAt)) {
            return new DeliveryOutcome.Moved(terminate(new Failed(FailureReason.EXPIRED, now), now));
        }
        return new DeliveryOutcome.Moved(with(new Scheduled(Optional.of(retryAt)), attempts, now));
    }

    /** Fails it for good ({@code claimed} or {@code sending}, held by {@code token}); the payload is purged. */
    public DeliveryOutcome fail(FencingToken token, FailureReason reason, Instant now) {
        if (!holds(token)) {
            return fenced(token);
        }
        return new DeliveryOutcome.Moved(terminate(new Failed(reason, now), now));
    }

    /**
     * Gives back a claim whose event was never written to the relay (graceful shutdown): {@code claimed} or
     * {@code sending} held by {@code token} → {@code scheduled}, due as before. The caller vouches that nothing left;
     * a frame that may have reached the relay is finished or left to the reaper instead.
     */
    public DeliveryOutcome release(FencingToken token, Instant now) {
        if (!holds(token)) {
            return fenced(token);
        }
        return new DeliveryOutcome.Moved(with(Scheduled.NOW, attempts, now));
    }

    /** Renews the lease of {@code token}'s claim while it is in flight. */
    public DeliveryOutcome renewLease(FencingToken token, Instant leaseUntil, Instant now) {
        return switch (state) {
            case Claimed c when c.token().equals(token) ->
                    new DeliveryOutcome.Moved(with(new Claimed(token, leaseUntil), attempts, now));
            case Sending s when s.token().equals(token) ->
                    new DeliveryOutcome.Moved(with(new Sending(token, leaseUntil), attempts, now));
            default -> fenced(token);
        };
    }

    /**
     * Returns an expired claim to {@code scheduled} (the reaper). A row reaped from {@code sending} may be sent
     * again: the same event id, which the relay answers {@code duplicate:}.
     *
     * @param now the database clock
     */
    public DeliveryOutcome reap(Instant now) {
        Instant leaseUntil = switch (state) {
            case Claimed c -> c.leaseUntil();
            case Sending s -> s.leaseUntil();
            case Scheduled s -> null;
            case Published p -> null;
            case Cancelled c -> null;
            case Failed f -> null;
        };
        if (leaseUntil == null || !leaseUntil.isBefore(now)) {
            return new DeliveryOutcome.Fenced("no expired lease in state " + state.wireName());
        }
        return new DeliveryOutcome.Moved(with(Scheduled.NOW, attempts, now));
    }

    /**
     * Fails a pending message because its channel was deleted or its owner removed from it (SPEC §3.9); the
     * payload is purged. A message already {@code sending} is left to its fenced finishing write.
     */
    public DeliveryOutcome revoke(FailureReason reason, Instant now) {
        if (!pending()) {
            return new DeliveryOutcome.Fenced("not pending: " + state.wireName());
        }
        return new DeliveryOutcome.Moved(terminate(new Failed(reason, now), now));
    }

    private boolean holds(FencingToken token) {
        return (state instanceof Claimed || state instanceof Sending) && token().orElseThrow().equals(token);
    }

    private DeliveryOutcome fenced(FencingToken token) {
        return new DeliveryOutcome.Fenced("token " + token + " does not hold message " + id
                + " (state " + state.wireName() + ")");
    }

    private ScheduledMessage with(ScheduleState next, int nextAttempts, Instant now) {
        return new ScheduledMessage(id, owner, channel, revision, eventId, dueAt, event, next, nextAttempts,
                createdAt, now);
    }

    private ScheduledMessage terminate(ScheduleState terminal, Instant now) {
        return new ScheduledMessage(id, owner, channel, revision, eventId, dueAt, Optional.empty(), terminal,
                attempts, createdAt, now);
    }
}

package buzz.scheduled.domain.schedule;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleState.Failed;
import buzz.scheduled.domain.schedule.ScheduleState.Published;
import buzz.scheduled.domain.schedule.ScheduleState.Scheduled;
import buzz.scheduled.domain.schedule.Transition.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The scheduled-message aggregate: one owner's signed event (the current revision) waiting to be published to
 * the relay at its due time. The owner's operations take {@code now} (the store's clock) and return the next value or
 * a sealed outcome; which state each may start from and where it leads is {@link Transition}'s table, which the
 * store's delivery writes follow too. Nothing here reads a clock.
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
 * @param series    the series a batch admitted it in ({@code "series": true}), kept for its whole life; empty for a
 *                  message admitted alone or in a batch without a series
 */
public record ScheduledMessage(
        ScheduleId id, PublicKey owner, Channel channel, Revision revision, EventId eventId, Instant dueAt,
        Optional<NostrEvent> event, ScheduleState state, int attempts, Instant createdAt, Instant updatedAt,
        Optional<SeriesId> series) {

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
        requirePresent(id, "series", series);
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
        } else if (!state.terminal()) {
            throw new IllegalArgumentException("only a terminal message may have its event purged, state is "
                    + state.wireName());
        }
    }

    /** A message in no series. */
    public ScheduledMessage(ScheduleId id, PublicKey owner, Channel channel, Revision revision, EventId eventId,
                            Instant dueAt, Optional<NostrEvent> event, ScheduleState state, int attempts,
                            Instant createdAt, Instant updatedAt) {
        this(id, owner, channel, revision, eventId, dueAt, event, state, attempts, createdAt, updatedAt,
                Optional.empty());
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
                admission.dueAt(), Optional.of(event), Scheduled.NOW, 0, now, now, Optional.empty());
    }

    /** This message as a member of {@code seriesId} (a newly admitted message of a series batch). */
    public ScheduledMessage inSeries(SeriesId seriesId) {
        if (seriesId == null) {
            throw new IllegalArgumentException("scheduled message " + id + ": series is missing");
        }
        return new ScheduledMessage(id, owner, channel, revision, eventId, dueAt, event, state, attempts, createdAt,
                updatedAt, Optional.of(seriesId));
    }

    /** The claim's fencing token while a claim is held ({@code claimed} or {@code sending}). */
    public Optional<FencingToken> token() {
        return state.fields().token();
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
    // Owner operations (docs/openapi.yaml, tag owner)

    /**
     * Replaces the event with a newly admitted one as the next revision (docs/openapi.yaml
     * {@code reviseScheduledMessage}). In {@code claimed} the new revision revokes the claim: the claimant's fenced
     * writes will no longer match.
     *
     * @param expected the revision the owner read ({@code If-Match})
     */
    public OwnerOutcome revise(Admission admission, Revision expected, Instant now) {
        return switch (Transition.REVISE.from(state.stateName())) {
            case Step.Moves moves -> reviseChecked(admission, expected, moves.to(), now);
            case Step.Refused refused -> new OwnerOutcome.Refused(refused.refusal());
            case Step.Stays stays -> new OwnerOutcome.Unchanged(this);
            case Step.Fenced fenced -> throw notAnOwnerStep(Transition.REVISE);
        };
    }

    private OwnerOutcome reviseChecked(Admission admission, Revision expected, StateName to, Instant now) {
        if (!expected.equals(revision)) {
            return new OwnerOutcome.RevisionConflict(revision);
        }
        if (!admission.event().pubkey().equals(owner)) {
            throw new IllegalArgumentException("a revision must be signed by the owner " + owner);
        }
        return new OwnerOutcome.Changed(withNewEvent(admission.event(), admission.channel(), admission.dueAt(), to,
                now));
    }

    private ScheduledMessage withNewEvent(NostrEvent newEvent, Channel newChannel, Instant newDueAt, StateName to,
                                          Instant now) {
        return new ScheduledMessage(id, owner, newChannel, revision.next(), newEvent.id(), newDueAt,
                Optional.of(newEvent), entered(to, now), attempts, createdAt, now, series);
    }

    /**
     * Cancels it (docs/openapi.yaml {@code cancelScheduledMessage}) and drops the event payload at once. Cancelling a
     * cancelled message answers it again unchanged.
     */
    public OwnerOutcome cancel(Instant now) {
        return switch (Transition.CANCEL.from(state.stateName())) {
            case Step.Moves moves -> new OwnerOutcome.Changed(new ScheduledMessage(id, owner, channel, revision,
                    eventId, dueAt, moves.to().keepsEvent() ? event : Optional.empty(), entered(moves.to(), now),
                    attempts, createdAt, now, series));
            case Step.Refused refused -> new OwnerOutcome.Refused(refused.refusal());
            case Step.Stays stays -> new OwnerOutcome.Unchanged(this);
            case Step.Fenced fenced -> throw notAnOwnerStep(Transition.CANCEL);
        };
    }

    /**
     * Makes it due now with a newly signed event (docs/openapi.yaml {@code sendScheduledMessageNow}): a new revision,
     * due at {@code now}.
     *
     * @param relayWindow how far from {@code now} the relay accepts a {@code created_at}
     */
    public OwnerOutcome sendNow(Admission admission, Duration relayWindow, Instant now) {
        return switch (Transition.SEND_NOW.from(state.stateName())) {
            case Step.Moves moves -> withinWindow(admission.event().createdAt(), relayWindow, now)
                    ? new OwnerOutcome.Changed(withNewEvent(admission.event(), admission.channel(), now, moves.to(),
                    now))
                    : new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED);
            case Step.Refused refused -> new OwnerOutcome.Refused(refused.refusal());
            case Step.Stays stays -> new OwnerOutcome.Unchanged(this);
            case Step.Fenced fenced -> throw notAnOwnerStep(Transition.SEND_NOW);
        };
    }

    /**
     * Makes it due now with the stored event (docs/openapi.yaml {@code sendScheduledMessageNow}), allowed only while
     * the stored {@code created_at} is within the relay's window of {@code now}; else {@code resign_required}.
     */
    public OwnerOutcome sendNow(Duration relayWindow, Instant now) {
        return switch (Transition.SEND_NOW.from(state.stateName())) {
            case Step.Moves moves -> {
                NostrEvent stored = event.orElseThrow(() -> new IllegalStateException(
                        "message " + id + " in " + state.wireName() + " has no event"));
                yield withinWindow(stored.createdAt(), relayWindow, now)
                        ? new OwnerOutcome.Changed(new ScheduledMessage(id, owner, channel, revision, eventId,
                        now.isBefore(dueAt) ? now : dueAt, event, entered(moves.to(), now), attempts, createdAt, now,
                        series))
                        : new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED);
            }
            case Step.Refused refused -> new OwnerOutcome.Refused(refused.refusal());
            case Step.Stays stays -> new OwnerOutcome.Unchanged(this);
            case Step.Fenced fenced -> throw notAnOwnerStep(Transition.SEND_NOW);
        };
    }

    /**
     * Makes a failed message due again with its stored event (an operator's requeue, docs/scheduled-messages.md §8):
     * {@code scheduled} with no retry time, the same revision, event and due time, the attempts
     * counted so far. Refused when the message did not fail ({@code not_failed}, {@code already_sent}), when its event
     * was purged ({@code event_purged}), or when its {@code created_at} is more than {@code latenessLimit} before
     * {@code now} ({@code resign_required}): delivery would fail it {@code expired} at once, and a relay refuses an
     * event that old, so only the owner can help by signing it again.
     *
     * @param expected the revision the operator saw, when given; another current revision is a conflict
     */
    public OwnerOutcome requeue(Optional<Revision> expected, Duration latenessLimit, Instant now) {
        return switch (Transition.REQUEUE.from(state.stateName())) {
            case Step.Moves moves -> {
                if (expected.isPresent() && !expected.get().equals(revision)) {
                    yield new OwnerOutcome.RevisionConflict(revision);
                }
                if (event.isEmpty()) {
                    yield new OwnerOutcome.Refused(OwnerRefusal.EVENT_PURGED);
                }
                if (Duration.between(dueAt, now).compareTo(latenessLimit) > 0) {
                    yield new OwnerOutcome.Refused(OwnerRefusal.RESIGN_REQUIRED);
                }
                yield new OwnerOutcome.Changed(new ScheduledMessage(id, owner, channel, revision, eventId, dueAt, event,
                        entered(moves.to(), now), attempts, createdAt, now));
            }
            case Step.Refused refused -> new OwnerOutcome.Refused(refused.refusal());
            case Step.Stays stays -> new OwnerOutcome.Unchanged(this);
            case Step.Fenced fenced -> throw notAnOwnerStep(Transition.REQUEUE);
        };
    }

    /**
     * {@code to} entered by an owner operation at {@code now}: no claim (an owner's change revokes one), no retry
     * time, and the time it ended if it is terminal.
     */
    private static ScheduleState entered(StateName to, Instant now) {
        ScheduleState.Fields fields = ScheduleState.Fields.of(to);
        return ScheduleState.of(to.terminal() ? fields.withFinishedAt(now) : fields);
    }

    private IllegalStateException notAnOwnerStep(Transition transition) {
        return new IllegalStateException(transition + " from " + state.wireName() + " is a delivery step in "
                + "Transition's table, not an owner's answer");
    }

    private static boolean withinWindow(long createdAt, Duration window, Instant now) {
        long distance = Math.abs(createdAt - now.getEpochSecond());
        return distance <= window.toSeconds();
    }
}

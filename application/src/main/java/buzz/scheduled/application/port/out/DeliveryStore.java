package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.FencingToken;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The storage the dispatcher needs and nothing else (docs/delivery.md): claim due messages in batches, record
 * batches of outcomes, renew, give back and reap leases, and tell when work is next due. Every decision on time is
 * taken on the store's clock inside the statement that acts on it, and every write made for a claim is conditional
 * on the row still being {@code sending} under that claim's fencing token and revision, so a dispatcher that lost
 * its claim changes nothing. Implementations: PostgreSQL (production) and an in-memory fake (tests).
 */
public interface DeliveryStore {

    /** The store's clock (PostgreSQL {@code now()}). */
    Instant now();

    /**
     * Claims up to {@code limit} messages that are {@code scheduled} and claimable (due time and retry time ≤ the
     * store's now), earliest claimable first, skipping rows other claimers hold, straight into {@code sending}: each
     * gets a fencing token greater than any before, a lease of {@code lease} from the store's now, and one more
     * attempt. Committed before this returns; no connection is held afterwards.
     *
     * @param limit 1 or more
     * @param lease positive
     */
    ClaimedBatch claim(int limit, Duration lease);

    /**
     * Records outcomes, in as few statements as the store can (one, normally), each conditional on the row being in
     * {@code sending} under {@link Finish#claim()} at {@link Finish#revision()}. One outcome's write failing (a
     * constraint, a trigger) never fails or delays the others: it is answered {@link Written#FAILED_TO_WRITE} and the
     * caller tries it again later.
     *
     * @param outcomes at most one per claim
     * @return one answer per outcome, in the same order
     * @throws RuntimeException when the store cannot be reached at all (nothing was written; try again)
     */
    List<FinishResult> finish(List<Finish> outcomes);

    /**
     * Extends the leases of claims still held ({@code claimed} or {@code sending} under the same token) to the store's
     * now + {@code lease}.
     *
     * @return the ids whose lease was renewed; a claim missing from it is no longer held
     */
    Set<ScheduleId> renew(Collection<Claim> claims, Duration lease);

    /**
     * Returns messages whose lease ended more than {@code grace} ago to {@code scheduled}, clearing the token (the next
     * claim sends the event again: a duplicate at worst, docs/failure-scenarios.md F1). Idempotent and safe on several
     * nodes at once; never waits for a row another writer holds.
     *
     * @return how many were returned
     */
    int reap(Duration grace);

    /** The earliest time a {@code scheduled} message becomes claimable (its due or retry time), if any. */
    Optional<Instant> nextDueAt();

    /** A claim: the message and the fencing token its dispatcher holds. */
    record Claim(ScheduleId id, FencingToken token) {
        public Claim {
            if (id == null || token == null) {
                throw new IllegalArgumentException("a claim needs an id and a fencing token");
            }
        }
    }

    /**
     * What one claim statement took.
     *
     * @param now      the store's clock in that statement (what the due times were judged against); present whenever
     *                 a message was claimed
     * @param messages the claimed messages, in no particular order
     */
    record ClaimedBatch(Optional<Instant> now, List<ClaimedMessage> messages) {
        public ClaimedBatch {
            if (now == null || messages == null) {
                throw new IllegalArgumentException("a claimed batch needs the store's clock and its messages");
            }
            if (now.isEmpty() && !messages.isEmpty()) {
                throw new IllegalArgumentException("a claimed batch with messages needs the store's clock");
            }
            messages = List.copyOf(messages);
        }
    }

    /**
     * One message claimed into {@code sending}.
     *
     * @param claim          the message and its new fencing token
     * @param revision       the revision claimed (the one whose event is sent)
     * @param eventId        that revision's event id
     * @param eventJson      that revision's exact signed event as stored: NIP-01 wire JSON, sent to the relay as it is
     * @param eventJsonBytes the UTF-8 length of {@code eventJson} in bytes, as the store counts it (PostgreSQL's
     *                       {@code octet_length}), so the hot path does not count it character by character
     * @param kind           that event's kind, as the store reads it from the stored event, so the hot path does not
     *                       parse the event again; {@link #UNKNOWN_KIND} when the stored text names none
     * @param owner          the author
     * @param channel        the event's {@code h} tag
     * @param dueAt          its due time
     * @param leaseUntil     when the claim lapses unless renewed (store clock)
     * @param attempts       claims made so far, this one included
     * @param channelDeleted whether the channel had a deletion tombstone when it was claimed
     * @param earlierSend    whether an earlier claim may have reached the relay without its outcome recorded
     */
    record ClaimedMessage(Claim claim, Revision revision, EventId eventId, String eventJson, int eventJsonBytes,
                          int kind, PublicKey owner, Channel channel, Instant dueAt, Instant leaseUntil, int attempts,
                          boolean channelDeleted, EarlierSend earlierSend) {
        /** The kind of a stored event whose text names none (a stored event is checked, so never in practice). */
        public static final int UNKNOWN_KIND = -1;

        public ClaimedMessage {
            if (claim == null || revision == null || eventId == null || eventJson == null || owner == null
                    || channel == null || dueAt == null || leaseUntil == null || earlierSend == null) {
                throw new IllegalArgumentException("a claimed message has a missing field");
            }
            if (attempts < 1) {
                throw new IllegalArgumentException("a claimed message has at least one attempt, got " + attempts);
            }
            if (kind < UNKNOWN_KIND || kind > NostrEvent.MAX_KIND) {
                throw new IllegalArgumentException("a claimed event's kind is 0 to " + NostrEvent.MAX_KIND + ", got "
                        + kind);
            }
            // UTF-8 takes at least one byte per UTF-16 char (a surrogate pair: four bytes for two chars).
            if (eventJsonBytes < eventJson.length()) {
                throw new IllegalArgumentException("an event of " + eventJson.length() + " chars cannot be "
                        + eventJsonBytes + " UTF-8 bytes");
            }
        }

        /** A claimed message whose event's UTF-8 length is counted here. */
        public ClaimedMessage(Claim claim, Revision revision, EventId eventId, String eventJson, int kind,
                              PublicKey owner, Channel channel, Instant dueAt, Instant leaseUntil, int attempts,
                              boolean channelDeleted, EarlierSend earlierSend) {
            this(claim, revision, eventId, eventJson,
                    eventJson == null ? 0 : eventJson.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, kind,
                    owner, channel, dueAt, leaseUntil, attempts, channelDeleted, earlierSend);
        }
    }

    /** What earlier claims of a row left behind (migration V9; docs/delivery.md, "Unknown outcomes"). */
    enum EarlierSend {
        /** Nothing the relay may hold unrecorded: never sent, or every earlier send's outcome was recorded. */
        NONE,
        /**
         * An earlier claim wrote the frame and its node stopped before the relay answered ({@link Finish.Unresolved}):
         * ask the relay before sending.
         */
        OUTCOME_UNKNOWN
    }

    /** An outcome to record for a claim held in {@code sending}. */
    sealed interface Finish {
        /** The claim it is recorded for. */
        Claim claim();

        /** The revision that claim is for. */
        Revision revision();

        /** {@code published} at the store's now (the relay accepted the event). */
        record Publish(Claim claim, Revision revision) implements Finish {
        }

        /**
         * Back to {@code scheduled}, claimable again at the store's now + {@code delay}; but {@code failed expired}
         * when that is more than {@code maxLateness} after the due time.
         *
         * @param why a short text for the log and the operator (the relay's words), possibly empty
         */
        record Retry(Claim claim, Revision revision, Duration delay, Duration maxLateness, String why)
                implements Finish {
            public Retry {
                if (delay == null || delay.isNegative() || maxLateness == null || why == null) {
                    throw new IllegalArgumentException("a retry needs a delay of zero or more, a lateness limit "
                            + "and a reason");
                }
            }
        }

        /**
         * {@code failed} with {@code reason} at the store's now; the event payload of every revision is purged.
         *
         * @param why a short text for the log and the operator (the relay's words), possibly empty
         */
        record Fail(Claim claim, Revision revision, FailureReason reason, String why) implements Finish {
            public Fail {
                if (reason == null || why == null) {
                    throw new IllegalArgumentException("a failure needs a reason");
                }
            }
        }

        /** Back to {@code scheduled}, claimable at once: the event was never written to the relay. */
        record Release(Claim claim, Revision revision) implements Finish {
        }

        /**
         * Back to {@code scheduled}, claimable at once, marked {@link EarlierSend#OUTCOME_UNKNOWN}: the frame was
         * written and its answer never came (a stop whose grace ran out), so the next claim asks the relay first.
         */
        record Unresolved(Claim claim, Revision revision) implements Finish {
        }
    }

    /** What a {@link Finish} came to. */
    enum Written {
        /** Now {@code published}. */
        PUBLISHED,
        /**
         * Now {@code scheduled} with a retry time (or at once, for a {@link Finish.Release} or
         * {@link Finish.Unresolved}).
         */
        RESCHEDULED,
        /** Now {@code failed} with the reason asked for. */
        FAILED,
        /** A retry asked for past the lateness limit: now {@code failed expired}. */
        EXPIRED,
        /** The claim no longer holds the row (reaped, superseded, finished): nothing written. */
        LOST,
        /** This outcome's own write failed (the others were written); nothing written for it. */
        FAILED_TO_WRITE
    }

    /**
     * One outcome's answer.
     *
     * @param written what happened
     * @param at      the store's clock when it was written (empty unless written)
     */
    record FinishResult(Written written, Optional<Instant> at) {
        public FinishResult {
            if (written == null || at == null) {
                throw new IllegalArgumentException("a finish result needs what was written and when");
            }
        }

        /** Whether the row changed. */
        public boolean recorded() {
            return written != Written.LOST && written != Written.FAILED_TO_WRITE;
        }
    }
}

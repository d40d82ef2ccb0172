package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Bulk storage operations for deletion, purges, retention and reservations (SPEC §3.9, §3.10). Each method is
 * one short transaction (pruning: one per batch) and decides on the store's clock. Implementations: PostgreSQL
 * (production) and an in-memory fake over the in-memory schedule store (tests).
 */
public interface ChannelAdministration {

    /**
     * Deletes {@code channel}: records a tombstone (later admissions answer {@code channel_not_found}), fails its
     * pending ({@code scheduled}, {@code claimed}) messages {@code channel_deleted}, and purges the event payloads
     * of every message in it, history included. A message already {@code sending} is left to its fenced
     * finishing write and counted in {@link ChannelDeleted#inFlight()}. Idempotent: a repeat purges what an
     * in-flight send left behind and changes nothing else.
     */
    ChannelDeleted deleteChannel(Channel channel);

    /**
     * Fails {@code member}'s pending ({@code scheduled}, {@code claimed}) messages in {@code channel}
     * {@code member_removed} and purges their payloads. Idempotent.
     */
    MemberRemoved removeMember(Channel channel, PublicKey member);

    /**
     * Deletes every message of {@code owner} in any state, with its revisions and idempotency keys.
     *
     * @return how many messages were deleted
     */
    int purgeOwner(PublicKey owner);

    /**
     * Deletes every message of every owner, with revisions and idempotency keys; tombstones stay.
     *
     * @return how many messages were deleted
     */
    int purgeAll();

    /**
     * Deletes at most {@code batch} terminal messages ({@code published}, {@code cancelled}, {@code failed})
     * that last changed more than {@code olderThan} before the store's now, oldest first.
     *
     * @param olderThan retention (not negative)
     * @param batch     largest number of rows one call deletes (≥ 1)
     * @return how many were deleted (less than {@code batch} means nothing older is left)
     */
    int pruneTerminal(Duration olderThan, int batch);

    /** The late-delivery reservation figures (SPEC §3.10) on the store's clock. */
    Reservations reservations();

    /**
     * What a channel deletion did.
     *
     * @param failed   pending messages now {@code failed channel_deleted}
     * @param purged   messages whose stored payload was removed by this call (the failed ones included)
     * @param inFlight messages in {@code sending} left to finish their relay round trip
     * @param newlyDeleted false when the channel already had a tombstone
     */
    record ChannelDeleted(int failed, int purged, int inFlight, boolean newlyDeleted) {
        public ChannelDeleted {
            if (failed < 0 || purged < 0 || inFlight < 0) {
                throw new IllegalArgumentException("deletion counts must not be negative");
            }
        }
    }

    /**
     * What a member removal did.
     *
     * @param failed   pending messages now {@code failed member_removed}
     * @param inFlight messages in {@code sending} left to finish their relay round trip
     */
    record MemberRemoved(int failed, int inFlight) {
        public MemberRemoved {
            if (failed < 0 || inFlight < 0) {
                throw new IllegalArgumentException("removal counts must not be negative");
            }
        }
    }

    /**
     * Late-delivery reservation figures (SPEC §3.10).
     *
     * @param heldBefore for the non-terminal messages already due (due time ≤ now), the oldest instant one of
     *                   them may land at: the earlier of its due time and its event's {@code created_at} (they
     *                   differ only after a send-now with a newly signed event). Empty when nothing is overdue. A
     *                   relay reading from replicas must not treat time from this instant on as complete
     * @param overdue    how many non-terminal messages are already due
     * @param nextDue    the earliest due time after now of a non-terminal message, if any
     * @param now        the store's clock when the figures were taken
     */
    record Reservations(Optional<Instant> heldBefore, long overdue, Optional<Instant> nextDue, Instant now) {
        public Reservations {
            if (heldBefore == null || nextDue == null || now == null) {
                throw new IllegalArgumentException("reservations need heldBefore, nextDue (present or empty) and now");
            }
            if (overdue < 0) {
                throw new IllegalArgumentException("overdue must not be negative, got " + overdue);
            }
            if (heldBefore.isPresent() != (overdue > 0)) {
                throw new IllegalArgumentException("heldBefore is present exactly when something is overdue, got "
                        + heldBefore + " with " + overdue + " overdue");
            }
        }
    }
}

package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.in.ReservationsUseCase.Reservations;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Duration;

/**
 * Bulk storage operations for deletion, purges, retention and reservations (docs/scheduled-messages.md §5, §6). Each
 * method is one short transaction (pruning: one per batch) and decides on the store's clock. Implementations:
 * PostgreSQL (production) and an in-memory fake over the in-memory schedule store (tests).
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

    /** The late-delivery reservation figures (docs/scheduled-messages.md §5) on the store's clock. */
    Reservations reservations();
}

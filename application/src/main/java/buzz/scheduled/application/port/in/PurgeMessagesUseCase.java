package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;

/** Operator purges (docs/scheduled-messages.md §6): delete an owner's messages, or everyone's, rows and all. */
public interface PurgeMessagesUseCase {

    /**
     * Deletes every message of {@code owner}, whatever its state.
     *
     * @return how many messages were deleted
     */
    int purgeOwner(PublicKey owner);

    /**
     * Deletes every message; channel tombstones stay.
     *
     * @return how many messages were deleted
     */
    int purgeAll();
}

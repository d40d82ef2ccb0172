package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.schedule.Channel;

/**
 * Deletes a channel (docs/scheduled-messages.md §6): its pending messages fail {@code channel_deleted}, its payloads
 * are purged and later admissions to it answer {@code channel_not_found}. Triggered by an operator route or by the
 * relay's NIP-29 {@code kind 9008} delete-group event.
 */
public interface DeleteChannelUseCase {

    /** Deletes {@code channel}; repeating it is harmless. */
    ChannelDeleted deleteChannel(Channel channel);

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
}

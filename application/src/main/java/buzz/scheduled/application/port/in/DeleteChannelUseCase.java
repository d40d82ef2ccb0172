package buzz.scheduled.application.port.in;

import buzz.scheduled.application.port.out.ChannelAdministration.ChannelDeleted;
import buzz.scheduled.domain.schedule.Channel;

/**
 * Deletes a channel (SPEC §3.9): its pending messages fail {@code channel_deleted}, its payloads are purged and
 * later admissions to it answer {@code channel_not_found}. Triggered by an operator route or by the relay's
 * NIP-29 {@code kind 9008} delete-group event.
 */
public interface DeleteChannelUseCase {

    /** Deletes {@code channel}; repeating it is harmless. */
    ChannelDeleted deleteChannel(Channel channel);
}

package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.DeleteChannelUseCase;
import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.PurgeMessagesUseCase;
import buzz.scheduled.application.port.in.RemoveMemberUseCase;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;

/**
 * Channel deletion, member removal and operator purges (docs/scheduled-messages.md §6) over
 * {@link ChannelAdministration}. The fenced pre-send step ({@link DeliveryService}) also refuses a deleted channel, so
 * a message that was in flight when the deletion committed and comes back for a retry is failed instead of published.
 */
public final class DeletionService implements DeleteChannelUseCase, RemoveMemberUseCase, PurgeMessagesUseCase {

    private final ChannelAdministration administration;

    public DeletionService(ChannelAdministration administration) {
        if (administration == null) {
            throw new IllegalArgumentException("deletion needs the channel administration port");
        }
        this.administration = administration;
    }

    @Override
    public ChannelDeleted deleteChannel(Channel channel) {
        return administration.deleteChannel(require(channel, "channel"));
    }

    @Override
    public MemberRemoved removeMember(Channel channel, PublicKey member) {
        return administration.removeMember(require(channel, "channel"), require(member, "member"));
    }

    @Override
    public int purgeOwner(PublicKey owner) {
        return administration.purgeOwner(require(owner, "owner"));
    }

    @Override
    public int purgeAll() {
        return administration.purgeAll();
    }

    private static <T> T require(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " is missing");
        }
        return value;
    }
}

package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;

/**
 * Records that a member left or was removed from a channel (docs/scheduled-messages.md §6): their pending messages
 * there fail {@code member_removed}. Triggered by an operator route or by the relay's NIP-29 {@code kind 9001}
 * remove-user event.
 */
public interface RemoveMemberUseCase {

    /** Fails {@code member}'s pending messages in {@code channel}; repeating it is harmless. */
    MemberRemoved removeMember(Channel channel, PublicKey member);

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
}

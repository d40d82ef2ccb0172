package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;

/**
 * Replaces a pending message's event with a newly signed one as its next revision (docs/openapi.yaml
 * {@code reviseScheduledMessage}).
 */
public interface ReviseMessageUseCase {

    /** Re-admits {@code event} fully, then compare-and-sets the new revision. */
    OwnerChangeResult revise(ReviseMessageCommand command);

    /**
     * @param ifMatch the revision the owner last read ({@code If-Match})
     */
    record ReviseMessageCommand(PublicKey owner, ScheduleId id, NostrEvent event, Revision ifMatch) {
        public ReviseMessageCommand {
            if (owner == null || id == null || event == null || ifMatch == null) {
                throw new IllegalArgumentException("revise command needs owner, id, event and If-Match revision");
            }
        }
    }
}

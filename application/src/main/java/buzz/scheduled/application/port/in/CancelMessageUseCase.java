package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;

/** Cancels a pending message and drops its event payload (docs/openapi.yaml {@code cancelScheduledMessage}). */
public interface CancelMessageUseCase {

    /** Cancels; a cancelled message is answered again unchanged. */
    OwnerChangeResult cancel(CancelMessageCommand command);

    /** Which message, for which owner. */
    record CancelMessageCommand(PublicKey owner, ScheduleId id) {
        public CancelMessageCommand {
            if (owner == null || id == null) {
                throw new IllegalArgumentException("cancel command needs owner and id");
            }
        }
    }
}

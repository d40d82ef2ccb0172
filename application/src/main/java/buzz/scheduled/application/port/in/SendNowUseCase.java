package buzz.scheduled.application.port.in;

import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.Optional;

/** Makes a pending message due now (docs/openapi.yaml {@code sendScheduledMessageNow}). */
public interface SendNowUseCase {

    /**
     * With an event: a new revision due now, its {@code created_at} within the relay's window of now. Without:
     * the stored event, allowed only while its {@code created_at} is within that window
     * ({@code resign_required} otherwise).
     */
    OwnerChangeResult sendNow(SendNowCommand command);

    /** Which message, for which owner, optionally with a newly signed event. */
    record SendNowCommand(PublicKey owner, ScheduleId id, Optional<NostrEvent> event) {
        public SendNowCommand {
            if (owner == null || id == null || event == null) {
                throw new IllegalArgumentException("send-now command needs owner, id and an event option");
            }
        }
    }
}
